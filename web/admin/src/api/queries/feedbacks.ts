import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { pageQuery, useList } from './list';

export type Feedback =
  paths['/self/{shopId}/feedbacks']['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type Appeal =
  paths['/self/{shopId}/feedbacks/appeals']['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type AppealStatus = Appeal['status'];

/** Feedbacks, newest first, with a rating filter; paged by cursor. */
export function useFeedbackList(shopId: number) {
  return useList<Feedback>(
    queryKeys.feedbacks.list(shopId),
    (query) =>
      unwrap(
        api.GET('/self/{shopId}/feedbacks', {
          params: {
            path: { shopId },
            query: {
              pageSize: query.pageSize,
              ...(query.searchString ? { searchString: query.searchString } : {}),
              ...(query.cursor ? { cursor: query.cursor } : {}),
              ...(query.rating ? { rating: Number(query.rating) } : {}),
            },
          },
        }),
      ),
    { filters: ['rating'], cursor: true },
  );
}

/** The shop's appeals, with a status filter. */
export function useAppealList(shopId: number) {
  return useList<Appeal>(
    queryKeys.feedbacks.appeals(shopId),
    (query) =>
      unwrap(
        api.GET('/self/{shopId}/feedbacks/appeals', {
          params: {
            path: { shopId },
            query: { ...pageQuery(query), ...(query.status ? { status: query.status as AppealStatus } : {}) },
          },
        }),
      ),
    { filters: ['status'] },
  );
}

/** Reads feedbacks and appeals again, after an answer or an appeal. */
export function useInvalidateFeedbacks(shopId: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.feedbacks.all(shopId) });
}

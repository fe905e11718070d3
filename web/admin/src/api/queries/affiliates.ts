import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { pageQuery, useList } from './list';

export type Affiliate =
  paths['/self/{shopId}/affiliates']['get']['responses'][200]['content']['application/json']['data']['items'][number];

export function useAffiliateList(shopId: number) {
  return useList<Affiliate>(queryKeys.affiliates.list(shopId), (query) =>
    unwrap(api.GET('/self/{shopId}/affiliates', { params: { path: { shopId }, query: pageQuery(query) } })),
  );
}

/** The referral figures between two dates ('' each: the API's default, the last 30 days). */
export function useAffiliateStats(shopId: number, fromDate: string, toDate: string) {
  return useQuery({
    queryKey: queryKeys.affiliates.stats(shopId, fromDate, toDate),
    queryFn: () =>
      unwrap(
        api.GET('/self/{shopId}/affiliates/stats', {
          params: {
            path: { shopId },
            query: { ...(fromDate ? { fromDate } : {}), ...(toDate ? { toDate } : {}) },
          },
        }),
      ),
  });
}

/** Stops a customer's referral commission; affiliates and customers are read again. */
export function useDisableReferral(shopId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (customerId: number) =>
      unwrap(
        api.POST('/self/{shopId}/affiliates/{customerId}/referral/disable', {
          params: { path: { shopId, customerId } },
        }),
      ),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.affiliates.all(shopId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.customers.all(shopId) }),
      ]),
  });
}

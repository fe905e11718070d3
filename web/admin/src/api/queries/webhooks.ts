import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { useList } from './list';

export type Webhook =
  paths['/self/{shopId}/webhooks']['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type WebhookAttempt =
  paths['/self/{shopId}/webhooks/{webhookId}/deliveries']['get']['responses'][200]['content']['application/json']['data']['items'][number];

export function useWebhookList(shopId: number) {
  return useList<Webhook>(queryKeys.webhooks.list(shopId), (query) =>
    unwrap(
      api.GET('/self/{shopId}/webhooks', {
        params: {
          path: { shopId },
          query: {
            pageNumber: query.pageNumber ?? 1,
            pageSize: query.pageSize,
            ...(query.searchString ? { searchString: query.searchString } : {}),
          },
        },
      }),
    ),
  );
}

/** An endpoint's delivery attempts, newest first, `pageSize` a page. */
export function useWebhookDeliveries(shopId: number, webhookId: number, pageNumber: number, pageSize: number) {
  return useQuery({
    queryKey: queryKeys.webhooks.deliveries(shopId, webhookId, pageNumber),
    queryFn: () =>
      unwrap(
        api.GET('/self/{shopId}/webhooks/{webhookId}/deliveries', {
          params: { path: { shopId, webhookId }, query: { pageNumber, pageSize } },
        }),
      ),
  });
}

/** Reads endpoints and deliveries again, after a write. */
export function useInvalidateWebhooks(shopId: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all(shopId) });
}

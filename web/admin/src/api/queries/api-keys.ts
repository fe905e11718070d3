import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';

export type ApiKey =
  paths['/self/keys']['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type NewApiKey = paths['/self/keys']['post']['responses'][200]['content']['application/json']['data'];

/** The account's API keys (they belong to the account; the shop in the key only files them). */
export function useApiKeys(shopId: number) {
  return useQuery({ queryKey: queryKeys.apiKeys(shopId), queryFn: () => unwrap(api.GET('/self/keys')) });
}

export function useInvalidateApiKeys(shopId: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys(shopId) });
}

import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { queryKeys } from './keys';

/** The account's shops. */
export function useShops() {
  return useQuery({
    queryKey: queryKeys.shops,
    queryFn: () => unwrap(api.GET('/self/shops')),
  });
}

import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { Answer } from '../types';
import { queryKeys } from './keys';
import { allPages } from './list';

export type Listing = Answer<'/self/{shopId}/listings', 'get'>['items'][number];

/** Every listing of the shop in storefront order, 100 a page. */
export function useAllListings(shopId: number) {
  return useQuery({
    queryKey: queryKeys.listings.everyOne(shopId),
    queryFn: () =>
      allPages((pageNumber) =>
        unwrap(
          api.GET('/self/{shopId}/listings', { params: { path: { shopId }, query: { pageNumber, pageSize: 100 } } }),
        ),
      ),
  });
}

/** A page of listings matching a search (a category's picker). */
export function searchListings(shopId: number, search: string, pageSize: number) {
  return unwrap(
    api.GET('/self/{shopId}/listings', {
      params: { path: { shopId }, query: { pageSize, ...(search ? { searchString: search } : {}) } },
    }),
  );
}

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import type { Answer } from '../types';
import { queryKeys } from './keys';
import { allPages, useList } from './list';

export type Product = Answer<'/self/{shopId}/v2/products/{productId}', 'get'>;
export type ProductListItem = Answer<'/self/{shopId}/v2/products', 'get'>['items'][number];
/** The product list's query (its `orderBy` is one of the API's words; the list sends what the columns offer). */
export type ProductQuery = NonNullable<paths['/self/{shopId}/v2/products']['get']['parameters']['query']>;

/** The product list: search, sort and cursor paging in the URL. */
export function useProductList(shopId: number) {
  return useList<ProductListItem>(
    queryKeys.products.list(shopId),
    (query) =>
      unwrap(api.GET('/self/{shopId}/v2/products', { params: { path: { shopId }, query: query as ProductQuery } })),
    { cursor: true, defaultOrder: '-createdAt' },
  );
}

/** One product with its variants (none asked for while `productId` is null: a new product). */
export function useProduct(shopId: number, productId: number | null) {
  return useQuery({
    queryKey: queryKeys.products.one(shopId, productId),
    queryFn: () =>
      unwrap(
        api.GET('/self/{shopId}/v2/products/{productId}', { params: { path: { shopId, productId: productId! } } }),
      ),
    enabled: productId !== null,
  });
}

/** A page of product summaries, `pageSize` of them, by title or matching a search. */
export function searchProducts(shopId: number, search: string, pageSize: number, byTitle = false) {
  return unwrap(
    api.GET('/self/{shopId}/products', {
      params: {
        path: { shopId },
        query: {
          pageSize,
          ...(byTitle ? { orderBy: 'title' as const } : {}),
          ...(search ? { searchString: search } : {}),
        },
      },
    }),
  );
}

/** Product titles by id, for lists that hold product ids (groups): every summary, 100 a page. */
export function useProductNames(shopId: number) {
  return useQuery({
    queryKey: queryKeys.products.names(shopId),
    queryFn: () =>
      allPages((pageNumber) =>
        unwrap(
          api.GET('/self/{shopId}/products', { params: { path: { shopId }, query: { pageNumber, pageSize: 100 } } }),
        ),
      ),
    select: (items) => new Map(items.map((p) => [p.id, p.title])),
  });
}

/** Products to filter by: the first 100 by title (the orders screen's product filter). */
export function useProductChoices(shopId: number) {
  return useQuery({
    queryKey: queryKeys.products.choices(shopId),
    queryFn: () => searchProducts(shopId, '', 100, true),
  });
}

/** A coupon's product picker: the first 100 by title matching the search, the last page kept while the next loads. */
export function useCouponProductSearch(shopId: number, search: string) {
  return useQuery({
    queryKey: queryKeys.products.couponPicker(shopId, search),
    queryFn: () => searchProducts(shopId, search, 100, true),
    placeholderData: keepPreviousData,
  });
}

import { useQuery } from '@tanstack/react-query';
import { ApiError, api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';

/** The `data` of a path's 200 answer, as the generated schema types it. */
type Answer<P extends keyof paths, M extends 'get' | 'post' | 'put'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': { data: infer D } } } };
}
  ? D
  : never;

/** The JSON body a path takes. */
type Body<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Product = Answer<'/self/{shopId}/v2/products/{productId}', 'get'>;
export type Variant = Product['variants'][number];
export type ProductListItem = Answer<'/self/{shopId}/v2/products', 'get'>['items'][number];
export type ProductBody = Body<'/self/{shopId}/v2/products/{productId}', 'put'>;
export type VariantBody = ProductBody['variants'][number];
export type Gateway = NonNullable<VariantBody['gateways']>[number]['gateway'];
export type ProductType = VariantBody['productType'];
export type CustomFieldType = NonNullable<VariantBody['customFields']>[number]['type'];
export type RestockAnswer = Answer<'/self/{shopId}/v2/products/{productId}/variants/{variantId}/serials', 'post'>;
export type Group = Answer<'/self/{shopId}/groups/{groupId}', 'get'>;
export type GroupBody = Body<'/self/{shopId}/groups/{groupId}', 'put'>;
export type Listing = Answer<'/self/{shopId}/listings', 'get'>['items'][number];
export type Category = Answer<'/self/{shopId}/categories/{categoryId}', 'get'>;
export type Settings = Answer<'/self/{shopId}/settings', 'get'>;

export const productTypeLabels: Record<ProductType, string> = {
  serials: 'Serial keys',
  service: 'Service (fixed text)',
  dynamic: 'Dynamic (fetched from your URL)',
};

/** The same, short, for a table cell. */
export const productTypeShort: Record<ProductType, string> = {
  serials: 'Serials',
  service: 'Service',
  dynamic: 'Dynamic',
};

export const customFieldTypeLabels: Record<CustomFieldType, string> = {
  text: 'Text',
  number: 'Number',
  email: 'E-mail',
  checkbox: 'Checkbox',
  textarea: 'Long text',
};

/**
 * The shop's gateways and whether each is enabled, from its payment settings: the names are the
 * keys the API answers, so a provider added to the server shows here without a change.
 */
export function useGateways(shopId: number) {
  return useQuery({
    queryKey: ['shop', shopId, 'settings', 'catalog-gateways'],
    queryFn: () => unwrap(api.GET('/self/{shopId}/settings', { params: { path: { shopId } } })),
    select: (settings) =>
      Object.entries(settings.payments).map(([name, provider]) => ({
        name: name as Gateway,
        enabled: provider.enabled,
      })),
  });
}

/** Every item of a paged list endpoint, page by page (the API's pages hold at most 100). */
export async function allPages<T>(
  fetchPage: (pageNumber: number) => Promise<{ items: T[]; totalPages: number }>,
  limit = 100,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= limit; page++) {
    const answer = await fetchPage(page);
    items.push(...answer.items);
    if (page >= answer.totalPages) break;
  }
  return items;
}

/** The visibility flags a product carries, as short words for a list. */
export function visibilityWords(p: { unlisted: boolean; private: boolean; onHold: boolean; isInternal: boolean }) {
  const words: string[] = [];
  if (p.private) words.push('Private');
  if (p.unlisted) words.push('Unlisted');
  if (p.onHold) words.push('On hold');
  if (p.isInternal) words.push('Internal');
  return words;
}

/** The API's problem with a field or anything under it (`variants[0].priceDetails` covers `.amount`). */
export function errorAt(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.fields[path]) return error.fields[path];
  const key = Object.keys(error.fields).find((k) => k.startsWith(`${path}.`));
  return key ? `${key.slice(path.length + 1)}: ${error.fields[key]}` : undefined;
}

/** The product list's query (its `orderBy` is one of the API's words; the list sends what the columns offer). */
export type ProductQuery = NonNullable<paths['/self/{shopId}/v2/products']['get']['parameters']['query']>;

export type ProductSummary = Answer<'/self/{shopId}/products', 'get'>['items'][number];

/** Product titles by id, for lists that hold product ids (groups): every summary, 100 a page. */
export function useProductNames(shopId: number) {
  return useQuery({
    queryKey: ['shop', shopId, 'products', 'names'],
    queryFn: () =>
      allPages((pageNumber) =>
        unwrap(
          api.GET('/self/{shopId}/products', { params: { path: { shopId }, query: { pageNumber, pageSize: 100 } } }),
        ),
      ),
    select: (items) => new Map(items.map((p) => [p.id, p.title])),
  });
}

/** Every listing of the shop in storefront order, 100 a page. */
export function useAllListings(shopId: number) {
  return useQuery({
    queryKey: ['shop', shopId, 'listings', 'all'],
    queryFn: () =>
      allPages((pageNumber) =>
        unwrap(
          api.GET('/self/{shopId}/listings', { params: { path: { shopId }, query: { pageNumber, pageSize: 100 } } }),
        ),
      ),
  });
}

export function listingTitle(listing: Listing): string {
  return listing.product?.title ?? listing.group?.title ?? listing.path;
}

/** Moves the item at `index` one place up (-1) or down (+1); the list is unchanged at an end. */
export function moved<T>(items: readonly T[], index: number, by: -1 | 1): T[] {
  const target = index + by;
  if (target < 0 || target >= items.length) return [...items];
  const next = [...items];
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next;
}

import type { Listing } from '../../api/queries/listings';
import type { Product } from '../../api/queries/products';
import type { Answer, JsonBody } from '../../api/types';
import { strings } from '../../strings';

export type Variant = Product['variants'][number];
export type ProductBody = JsonBody<'/self/{shopId}/v2/products/{productId}', 'put'>;
export type VariantBody = ProductBody['variants'][number];
export type Gateway = NonNullable<VariantBody['gateways']>[number]['gateway'];
export type ProductType = VariantBody['productType'];
export type CustomFieldType = NonNullable<VariantBody['customFields']>[number]['type'];
/** A file a file variant delivers, as the product answers it. */
export type VariantFile = NonNullable<Variant['asFile']>['files'][number];
export type RestockAnswer = Answer<'/self/{shopId}/v2/products/{productId}/variants/{variantId}/serials', 'post'>;

export const productTypeLabels: Record<ProductType, string> = strings.productEdit.productTypeLabels;

/** The same, short, for a table cell. */
export const productTypeShort: Record<ProductType, string> = strings.productEdit.productTypeShort;

/** The types a variant may issue a licence on (a dynamic variant's answer is not a key). */
export const licensedTypes: readonly ProductType[] = ['serials', 'service', 'file'];

/** The key pattern the API uses when a variant gives none. */
export const DEFAULT_KEY_PATTERN = 'XXXX-XXXX-XXXX-XXXX';

export const customFieldTypeLabels: Record<CustomFieldType, string> = strings.productEdit.customFieldTypeLabels;

/** The visibility flags a product carries, as short words for a list. */
export function visibilityWords(p: { unlisted: boolean; private: boolean; onHold: boolean; isInternal: boolean }) {
  const words: string[] = [];
  if (p.private) words.push(strings.productEdit.private);
  if (p.unlisted) words.push(strings.productEdit.unlisted);
  if (p.onHold) words.push(strings.productEdit.onHold);
  if (p.isInternal) words.push(strings.productEdit.internal);
  return words;
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

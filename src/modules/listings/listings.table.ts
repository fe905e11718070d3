import type { Generated, Selectable } from 'kysely';

export type ListingType = 'product' | 'group';

/** What the storefront shows, in order: one per ungrouped live product and one per group. */
export interface ListingsTable {
  id: Generated<number>;
  shop_id: number;
  type: ListingType;
  product_id: number | null;
  group_id: number | null;
  position: number;
  created_at: number;
}

export type ListingRow = Selectable<ListingsTable>;

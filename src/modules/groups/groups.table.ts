import type { Generated, Selectable } from 'kysely';

export type GroupType = 'list' | 'dropdown';

export interface ProductGroupsTable {
  id: Generated<number>;
  shop_id: number;
  title: string;
  description: string | null;
  /** Slug for the group's listing, unique among the shop's groups and live products. */
  path: string;
  priority: Generated<number>;
  type: Generated<GroupType>;
  main: Generated<number>;
  thumbnail: string | null;
  created_at: number;
  updated_at: number;
}

export interface GroupProductsTable {
  shop_id: number;
  group_id: number;
  product_id: number;
  position: number;
}

export type GroupRow = Selectable<ProductGroupsTable>;

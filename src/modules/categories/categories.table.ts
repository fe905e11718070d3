import type { Generated, Selectable } from 'kysely';

export interface CategoriesTable {
  id: Generated<number>;
  shop_id: number;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface CategoryListingsTable {
  shop_id: number;
  category_id: number;
  listing_id: number;
  position: number;
}

export type CategoryRow = Selectable<CategoriesTable>;

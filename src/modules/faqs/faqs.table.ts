import type { Generated, Selectable } from 'kysely';

export interface FaqsTable {
  id: Generated<number>;
  shop_id: number;
  question: string;
  answer: string;
  /** Public order: ascending, id as tie-break. */
  position: Generated<number>;
  created_at: number;
  updated_at: number;
}

export type FaqRow = Selectable<FaqsTable>;

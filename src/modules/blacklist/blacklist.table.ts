import type { Generated, Selectable } from 'kysely';

export type BlockedItemType = 'email' | 'ip' | 'country';

export interface BlacklistTable {
  id: Generated<number>;
  shop_id: number;
  type: BlockedItemType;
  /** Normalised: e-mail lower-case, IP or CIDR canonical, country ISO 3166 alpha-2 upper-case. */
  data: string;
  note: string | null;
  created_at: number;
  updated_at: number;
}

export type BlockedItemRow = Selectable<BlacklistTable>;

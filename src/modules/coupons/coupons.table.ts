import type { Generated, Selectable } from 'kysely';

export interface CouponsTable {
  id: Generated<number>;
  shop_id: number;
  /** The code as the owner wrote it. */
  name: string;
  /** Lower-cased code: unique per shop, matched without regard to case. */
  name_key: string;
  note: string | null;
  is_fixed: number;
  /** Fixed: minor units of the shop currency. Percentage: basis points (1234 = 12.34 %). */
  discount: number;
  start_at: number | null;
  end_at: number | null;
  /** JSON array of product ids; empty = every product. */
  restrict_products: Generated<string>;
  /** JSON array of gateway names; empty = every gateway. */
  restrict_gateways: Generated<string>;
  max_uses: number | null;
  /** Pending and completed invoices holding the coupon; an expired one gives its use back. */
  uses: Generated<number>;
  created_at: number;
  updated_at: number;
}

export type CouponRow = Selectable<CouponsTable>;

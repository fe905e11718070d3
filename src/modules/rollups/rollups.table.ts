import type { Generated } from 'kysely';

/**
 * Dashboard rollups: deltas per bucket of shop-local days (days since 1970-01-01 in the offset
 * of `rollup_state`). A row holds what happened in its bucket only, never a running total. Each
 * fact is kept at five levels: level 0 is one local day (bucket = day), level k a block of 8^k
 * days (bucket = day / 8^k: 8, 64, 512 and 4,096 days); a range of days
 * is summed from the few whole blocks it covers plus its ragged ends (see rollups.ts).
 *
 * Rows belong to a generation of the shop's rollups: reads use `rollup_state.generation`; a
 * rebuild (a timezone change, `shopd rollups rebuild`) fills the next one in the background
 * and then switches to it.
 */
export interface RollupStateTable {
  shop_id: number;
  /** The generation dashboards read. */
  generation: number;
  /** The UTC offset the live generation's local days are in (when `timezone` is null). */
  utc_offset_minutes: number;
  /** The IANA time zone the live generation's local days are in; null: the fixed `utc_offset_minutes` (migration 0038). */
  timezone: Generated<string | null>;
  /** While a rebuild runs: the offset generation + 1 is being built in; null otherwise. */
  rebuild_offset_minutes: number | null;
  /** While a rebuild runs: the time zone generation + 1 is being built in (null: `rebuild_offset_minutes`, fixed). */
  rebuild_timezone: Generated<string | null>;
  /**
   * While a rebuild runs: source rows (invoices, customers, feedbacks, replacements) created
   * before this instant are in generation + 1; null while that generation's old rows are cleared.
   */
  rebuild_cursor: number | null;
}

interface Bucket {
  shop_id: number;
  generation: number;
  /** 0: a day, k: a block of 8^k days (up to 4: 4,096 days). */
  level: number;
  bucket: number;
}

export interface RollupTotalsTable extends Bucket {
  /** Invoices created (any status), still pending, completed since: by creation day. */
  created_orders: number;
  created_pending: number;
  created_completed: number;
  /** Invoices completed, their totals (minor units), units and repeat purchases: by completion day. */
  completed_orders: number;
  revenue: number;
  units_sold: number;
  repeat_orders: number;
  new_customers: number;
  feedbacks: number;
  rating_sum: number;
  replacements: number;
  replaced_units: number;
  /** Refunds made and the minor units refunded, by the day of the refund. */
  refunds: number;
  refunded: number;
}

/** Parts of completed invoices by product; `last_part_id` is the highest part id in the bucket. */
export interface RollupProductsTable extends Bucket {
  product_id: number;
  revenue: number;
  quantity: number;
  last_part_id: number;
}

/** Completed invoices by local hour of completion (0–23). */
export interface RollupHoursTable extends Bucket {
  hour: number;
  orders: number;
}

/** Completed invoices and their totals by gateway. */
export interface RollupGatewaysTable extends Bucket {
  gateway: string;
  revenue: number;
  orders: number;
}

/** Invoices by creation day, current status and gateway: the owner list's totalCount. */
export interface RollupInvoiceCountsTable extends Bucket {
  status: string;
  gateway: string;
  invoices: number;
}

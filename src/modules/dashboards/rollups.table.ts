/**
 * Dashboard rollups: cumulative snapshots per shop-local day (days since 1970-01-01 in the
 * offset of `rollup_state`). A row of day d holds the total of everything up to the end of day d;
 * the figure of days a…b is row(b) − row(a − 1), each taken from the latest snapshot at or
 * before that day. A snapshot exists for every day on which something was rolled up, and holds a
 * row for every key (product, hour, gateway, status × gateway) seen by then. See rollups.ts.
 */
export interface RollupStateTable {
  shop_id: number;
  /** The shop offset the rollups are keyed by; rebuilt with the shop's when it changes. */
  utc_offset_minutes: number;
}

export interface RollupDaysTable {
  shop_id: number;
  day: number;
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
}

/** Parts of completed invoices by product; `last_part_id` is the highest part id so far. */
export interface RollupProductsTable {
  shop_id: number;
  day: number;
  product_id: number;
  revenue: number;
  quantity: number;
  last_part_id: number;
}

/** Completed invoices by local hour of completion (0–23). */
export interface RollupHoursTable {
  shop_id: number;
  day: number;
  hour: number;
  orders: number;
}

/** Completed invoices and their totals by gateway. */
export interface RollupGatewaysTable {
  shop_id: number;
  day: number;
  gateway: string;
  revenue: number;
  orders: number;
}

/** Invoices by creation day, current status and gateway: the owner list's totalCount. */
export interface RollupInvoiceCountsTable {
  shop_id: number;
  day: number;
  status: string;
  gateway: string;
  invoices: number;
}

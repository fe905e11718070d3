import { type Kysely, sql } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { HOUR_MS } from './local-days.js';
import { DAY_COLUMNS, type DayTotals, snapshotAt } from './rollups.js';

type Conn = Kysely<Database>;

/** Inclusive bounds in epoch milliseconds. */
export interface Range {
  from: number;
  to: number;
}

export interface ProductSales {
  productId: number;
  revenue: number;
  quantity: number;
  /** The highest part id sold: the title comes from it. */
  lastPartId: number;
}

export const zeroTotals = (): DayTotals => Object.fromEntries(DAY_COLUMNS.map((c) => [c, 0])) as DayTotals;

/*
 * Whole local days, from the rollups: each figure is snapshot(≤ last) − snapshot(≤ first − 1), so
 * a query reads two rows per key whatever the length of the range (see rollups.ts). Dashboards
 * run these on every request, so each is built and compiled once (`prepared`).
 */

/** Whole local days first…last, both bounded. */
export interface WholeDays {
  first: number;
  last: number;
}

/** The parameters of a snapshot-difference query: the shop and the days its two snapshots are taken at or before. */
interface SnapshotParams {
  shopId: number;
  last: number;
  beforeFirst: number;
}

const snapshotParams = (shopId: number, days: WholeDays): SnapshotParams => ({
  shopId,
  last: days.last,
  beforeFirst: days.first - 1,
});

const totalsQuery = prepared((db, p: SnapshotParams) =>
  db
    .selectFrom('rollup_days as h')
    .leftJoin('rollup_days as l', (join) =>
      join.onRef('l.shop_id', '=', 'h.shop_id').on('l.day', '=', snapshotAt(db, p.shopId, p.beforeFirst)),
    )
    .select(DAY_COLUMNS.map((c) => sql<number>`${sql.ref(`h.${c}`)} - coalesce(${sql.ref(`l.${c}`)}, 0)`.as(c)))
    .where('h.shop_id', '=', p.shopId)
    .where('h.day', '=', snapshotAt(db, p.shopId, p.last)),
);

export async function rollupTotals(db: Conn, shopId: number, days: WholeDays): Promise<DayTotals> {
  const [row] = await totalsQuery(db, snapshotParams(shopId, days));
  if (!row) return zeroTotals();
  return Object.fromEntries(DAY_COLUMNS.map((c) => [c, Number(row[c])])) as DayTotals;
}

// The snapshot before the range (when there is one) comes first: the base of the differences.
const seriesQuery = prepared((db, p: SnapshotParams & { first: number }) =>
  db
    .selectFrom('rollup_days')
    .select(
      sql<string | null>`string_agg(day || ':' || revenue || ':' || created_orders, ',' order by day)`.as('points'),
    )
    .where('shop_id', '=', p.shopId)
    .where('day', '>=', sql<number>`coalesce((${snapshotAt(db, p.shopId, p.beforeFirst)}), ${p.first})`)
    .where('day', '<=', p.last),
);

/**
 * Revenue (by completion) and invoices created, per day of `first…last` that has any. A year is
 * up to 367 snapshot rows: they come back as one `day:revenue:orders,…` string, which costs a
 * fraction of building a row object per day (string_agg: PostgreSQL, SQLite ≥ 3.44).
 */
export async function rollupSeries(
  db: Conn,
  shopId: number,
  days: WholeDays,
): Promise<Map<number, { revenue: number; orders: number }>> {
  const [row] = await seriesQuery(db, { ...snapshotParams(shopId, days), first: days.first });
  const series = new Map<number, { revenue: number; orders: number }>();
  // One split into day, revenue, created, day, …: a split per point cost a year's series 0.15 ms.
  const values = row?.points ? row.points.split(/[:,]/) : [];
  let previous = { revenue: 0, created: 0 };
  for (let i = 0; i + 2 < values.length; i += 3) {
    const day = Number(values[i]);
    const revenue = Number(values[i + 1]);
    const created = Number(values[i + 2]);
    if (day >= days.first) series.set(day, { revenue: revenue - previous.revenue, orders: created - previous.created });
    previous = { revenue, created };
  }
  return series;
}

function productsQuery(db: Conn, p: SnapshotParams) {
  const revenue = sql<number>`h.revenue - coalesce(l.revenue, 0)`;
  const quantity = sql<number>`h.quantity - coalesce(l.quantity, 0)`;
  return db
    .selectFrom('rollup_products as h')
    .leftJoin('rollup_products as l', (join) =>
      join
        .onRef('l.shop_id', '=', 'h.shop_id')
        .onRef('l.product_id', '=', 'h.product_id')
        .on('l.day', '=', snapshotAt(db, p.shopId, p.beforeFirst)),
    )
    .select(['h.product_id', revenue.as('revenue'), quantity.as('quantity'), 'h.last_part_id'])
    .where('h.shop_id', '=', p.shopId)
    .where('h.day', '=', snapshotAt(db, p.shopId, p.last))
    .where(quantity, '>', 0)
    .orderBy('revenue', 'desc')
    .orderBy('quantity', 'desc')
    .orderBy('h.product_id');
}
const allProductsQuery = prepared(productsQuery);
const topProductsQuery = prepared((db, p: SnapshotParams & { limit: number }) => productsQuery(db, p).limit(p.limit));

/** Units and part totals of completed invoices per product, best first; `limit` cuts the list. */
export async function rollupProducts(
  db: Conn,
  shopId: number,
  days: WholeDays,
  limit?: number,
): Promise<ProductSales[]> {
  const params = snapshotParams(shopId, days);
  const rows = await (limit === undefined ? allProductsQuery(db, params) : topProductsQuery(db, { ...params, limit }));
  return rows.map((r) => ({
    productId: r.product_id,
    revenue: Number(r.revenue),
    quantity: Number(r.quantity),
    lastPartId: Number(r.last_part_id),
  }));
}

/** The highest part id of each product sold up to the end of local day `day` (the snapshot at or before it). */
export async function rollupLastParts(
  db: Conn,
  shopId: number,
  day: number,
  productIds: number[],
): Promise<Map<number, number>> {
  if (productIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('rollup_products')
    .select(['product_id', 'last_part_id'])
    .where('shop_id', '=', shopId)
    .where('day', '=', snapshotAt(db, shopId, day))
    .where('product_id', 'in', productIds)
    .execute();
  return new Map(rows.map((r) => [r.product_id, Number(r.last_part_id)]));
}

const hoursQuery = prepared((db, p: SnapshotParams) =>
  db
    .selectFrom('rollup_hours as h')
    .leftJoin('rollup_hours as l', (join) =>
      join
        .onRef('l.shop_id', '=', 'h.shop_id')
        .onRef('l.hour', '=', 'h.hour')
        .on('l.day', '=', snapshotAt(db, p.shopId, p.beforeFirst)),
    )
    .select(['h.hour', sql<number>`h.orders - coalesce(l.orders, 0)`.as('orders')])
    .where('h.shop_id', '=', p.shopId)
    .where('h.day', '=', snapshotAt(db, p.shopId, p.last)),
);

/** Completed invoices per local hour of completion. */
export async function rollupHours(
  db: Conn,
  shopId: number,
  days: WholeDays,
): Promise<{ hour: number; orders: number }[]> {
  const rows = await hoursQuery(db, snapshotParams(shopId, days));
  return rows.map((r) => ({ hour: r.hour, orders: Number(r.orders) }));
}

const gatewaysQuery = prepared((db, p: SnapshotParams) => {
  const orders = sql<number>`h.orders - coalesce(l.orders, 0)`;
  return db
    .selectFrom('rollup_gateways as h')
    .leftJoin('rollup_gateways as l', (join) =>
      join
        .onRef('l.shop_id', '=', 'h.shop_id')
        .onRef('l.gateway', '=', 'h.gateway')
        .on('l.day', '=', snapshotAt(db, p.shopId, p.beforeFirst)),
    )
    .select(['h.gateway', sql<number>`h.revenue - coalesce(l.revenue, 0)`.as('revenue'), orders.as('orders')])
    .where('h.shop_id', '=', p.shopId)
    .where('h.day', '=', snapshotAt(db, p.shopId, p.last))
    .where(orders, '>', 0);
});

/** Completed invoices and their totals per gateway. */
export async function rollupGateways(
  db: Conn,
  shopId: number,
  days: WholeDays,
): Promise<{ gateway: string; revenue: number; orders: number }[]> {
  const rows = await gatewaysQuery(db, snapshotParams(shopId, days));
  return rows.map((r) => ({ gateway: r.gateway, revenue: Number(r.revenue), orders: Number(r.orders) }));
}

/*
 * Parts of a local day, from the raw rows: the partial first and last days of a range given as
 * date-times. Each range here lies within one local day, so these read one day's rows at most,
 * through (shop_id, created_at) and (shop_id, completed_at) indexes.
 */

function completedIn(db: Conn, shopId: number, range: Range) {
  return db
    .selectFrom('invoices')
    .where('invoices.shop_id', '=', shopId)
    .where('invoices.completed_at', '>=', range.from)
    .where('invoices.completed_at', '<=', range.to);
}

/** The `rollup_days` measures of a range, counted from the raw rows. */
export async function rawTotals(db: Conn, shopId: number, range: Range): Promise<DayTotals> {
  const [created, completed, units, customers, feedbacks, replacements] = await Promise.all([
    db
      .selectFrom('invoices')
      .where('shop_id', '=', shopId)
      .where('created_at', '>=', range.from)
      .where('created_at', '<=', range.to)
      .select((eb) => [
        eb.fn.countAll<number>().as('created_orders'),
        eb.fn.sum<number>(eb.case().when('status', '=', 'pending').then(1).else(0).end()).as('created_pending'),
        eb.fn.sum<number>(eb.case().when('status', '=', 'completed').then(1).else(0).end()).as('created_completed'),
      ])
      .executeTakeFirstOrThrow(),
    completedIn(db, shopId, range)
      .select((eb) => [
        eb.fn.countAll<number>().as('completed_orders'),
        eb.fn.sum<number>('invoices.total').as('revenue'),
        eb.fn.sum<number>(eb.fn.coalesce('invoices.repeat_purchase', eb.val(0))).as('repeat_orders'),
      ])
      .executeTakeFirstOrThrow(),
    completedIn(db, shopId, range)
      .innerJoin('invoice_parts as p', (join) =>
        join.onRef('p.invoice_id', '=', 'invoices.id').on('p.shop_id', '=', shopId),
      )
      .select((eb) => eb.fn.sum<number>('p.quantity').as('units_sold'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('new_customers'))
      .where('shop_id', '=', shopId)
      .where('created_at', '>=', range.from)
      .where('created_at', '<=', range.to)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('feedbacks')
      .select((eb) => [eb.fn.countAll<number>().as('feedbacks'), eb.fn.sum<number>('rating').as('rating_sum')])
      .where('shop_id', '=', shopId)
      .where('created_at', '>=', range.from)
      .where('created_at', '<=', range.to)
      // Not those hidden by an accepted appeal, as the rollups (recordFeedbackWithdrawn).
      .where('id', 'not in', (eb) =>
        eb
          .selectFrom('feedback_appeals')
          .select('feedback_id')
          .where('shop_id', '=', shopId)
          .where('status', '=', 'accepted'),
      )
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('invoice_replacements')
      .select((eb) => [eb.fn.countAll<number>().as('replacements'), eb.fn.sum<number>('quantity').as('replaced_units')])
      .where('shop_id', '=', shopId)
      .where('created_at', '>=', range.from)
      .where('created_at', '<=', range.to)
      .executeTakeFirstOrThrow(),
  ]);
  const totals: Record<string, unknown> = {
    ...created,
    ...completed,
    ...units,
    ...customers,
    ...feedbacks,
    ...replacements,
  };
  return Object.fromEntries(DAY_COLUMNS.map((c) => [c, Number(totals[c] ?? 0)])) as DayTotals;
}

/** Part totals, units and the highest part id per product, of the invoices completed in the range. */
export async function rawProducts(
  db: Conn,
  shopId: number,
  range: Range,
  productIds?: number[],
): Promise<ProductSales[]> {
  if (productIds?.length === 0) return [];
  let query = completedIn(db, shopId, range)
    .innerJoin('invoice_parts as p', (join) =>
      join.onRef('p.invoice_id', '=', 'invoices.id').on('p.shop_id', '=', shopId),
    )
    .select((eb) => [
      'p.product_id',
      eb.fn.sum<number>('p.total').as('revenue'),
      eb.fn.sum<number>('p.quantity').as('quantity'),
      eb.fn.max('p.id').as('last_part_id'),
    ])
    .groupBy('p.product_id');
  if (productIds) query = query.where('p.product_id', 'in', productIds);
  const rows = await query.execute();
  return rows.map((r) => ({
    productId: r.product_id,
    revenue: Number(r.revenue),
    quantity: Number(r.quantity),
    lastPartId: Number(r.last_part_id),
  }));
}

/**
 * Completions of the range by local hour, in integer arithmetic both engines run alike. The
 * offset and divisor are literals: better-sqlite3 binds every JS number as REAL, which would turn
 * the division into a fraction. Timestamps are positive, so truncation is the floor.
 */
export async function rawHours(
  db: Conn,
  shopId: number,
  range: Range,
  offsetMs: number,
): Promise<{ hour: number; orders: number }[]> {
  const hour = sql<number>`(((invoices.completed_at + ${sql.lit(Math.trunc(offsetMs))}) / ${sql.lit(HOUR_MS)}) % 24)`;
  const rows = await completedIn(db, shopId, range)
    .select((eb) => [hour.as('hour'), eb.fn.countAll<number>().as('orders')])
    .groupBy(hour)
    .execute();
  return rows.map((r) => ({ hour: Number(r.hour), orders: Number(r.orders) }));
}

export async function rawGateways(
  db: Conn,
  shopId: number,
  range: Range,
): Promise<{ gateway: string; revenue: number; orders: number }[]> {
  const rows = await completedIn(db, shopId, range)
    .select((eb) => [
      'invoices.gateway',
      eb.fn.sum<number>('invoices.total').as('revenue'),
      eb.fn.countAll<number>().as('orders'),
    ])
    .groupBy('invoices.gateway')
    .execute();
  return rows.map((r) => ({ gateway: r.gateway, revenue: Number(r.revenue), orders: Number(r.orders) }));
}

/** The titles parts were sold under. */
export async function partTitles(db: Conn, shopId: number, partIds: number[]): Promise<Map<number, string>> {
  if (partIds.length === 0) return new Map();
  // `+shop_id` keeps the shop condition out of index choice: SQLite without statistics would
  // otherwise scan the shop's (shop_id, product_id) index instead of looking the ids up.
  const rows = await db
    .selectFrom('invoice_parts')
    .select(['id', 'title'])
    .where('id', 'in', partIds)
    .where(sql<number>`+shop_id`, '=', shopId)
    .execute();
  return new Map(rows.map((r) => [r.id, r.title]));
}

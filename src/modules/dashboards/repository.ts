import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';

type Conn = Kysely<Database>;

/** Inclusive bounds in epoch milliseconds, and the shop's UTC offset in milliseconds. */
export interface Range {
  from: number;
  to: number;
  offsetMs: number;
}

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/**
 * The shop-local day (days since 1970-01-01) or hour of day of an epoch-millisecond column, in
 * integer arithmetic that both engines run alike: bigint ÷ integer truncates on PostgreSQL and
 * integer ÷ integer on SQLite. The offset is inlined as a literal (it is a validated integer):
 * better-sqlite3 binds every JS number as REAL, which would turn the division into a fraction.
 * Timestamps are positive, so truncation is the floor.
 */
function localDay(column: string, offsetMs: number): RawBuilder<number> {
  return sql<number>`((${sql.ref(column)} + ${sql.lit(Math.trunc(offsetMs))}) / ${sql.lit(DAY_MS)})`;
}

function localHour(column: string, offsetMs: number): RawBuilder<number> {
  return sql<number>`(((${sql.ref(column)} + ${sql.lit(Math.trunc(offsetMs))}) / ${sql.lit(HOUR_MS)}) % 24)`;
}

/** Completed invoices whose completion falls in the range. */
function completedIn(db: Conn, shopId: number, range: Range) {
  return db
    .selectFrom('invoices')
    .where('invoices.shop_id', '=', shopId)
    .where('invoices.status', '=', 'completed')
    .where('invoices.completed_at', '>=', range.from)
    .where('invoices.completed_at', '<=', range.to);
}

/** Invoices created in the range, whatever became of them. */
function createdIn(db: Conn, shopId: number, range: Range) {
  return db.selectFrom('invoices').where('shop_id', '=', shopId).where('created_at', '>=', range.from).where('created_at', '<=', range.to);
}

export async function completedTotals(db: Conn, shopId: number, range: Range): Promise<{ revenue: number; orders: number }> {
  const row = await completedIn(db, shopId, range)
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('invoices.total'), eb.val(0)).as('revenue'), eb.fn.countAll<number>().as('orders')])
    .executeTakeFirstOrThrow();
  return { revenue: Number(row.revenue), orders: Number(row.orders) };
}

/** Invoices created in the range: all of them, those completed since and those still pending. */
export async function createdTotals(db: Conn, shopId: number, range: Range): Promise<{ created: number; completed: number; pending: number }> {
  const row = await createdIn(db, shopId, range)
    .select((eb) => [
      eb.fn.countAll<number>().as('created'),
      eb.fn.sum<number>(eb.case().when('status', '=', 'completed').then(1).else(0).end()).as('completed'),
      eb.fn.sum<number>(eb.case().when('status', '=', 'pending').then(1).else(0).end()).as('pending'),
    ])
    .executeTakeFirstOrThrow();
  return { created: Number(row.created), completed: Number(row.completed ?? 0), pending: Number(row.pending ?? 0) };
}

/** Units in the parts of invoices completed in the range. */
export async function unitsSold(db: Conn, shopId: number, range: Range): Promise<number> {
  const row = await completedIn(db, shopId, range)
    .innerJoin('invoice_parts as p', (join) => join.onRef('p.invoice_id', '=', 'invoices.id').on('p.shop_id', '=', shopId))
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('p.quantity'), eb.val(0)).as('units'))
    .executeTakeFirstOrThrow();
  return Number(row.units);
}

export async function newCustomers(db: Conn, shopId: number, range: Range): Promise<number> {
  const row = await db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId)
    .where('created_at', '>=', range.from)
    .where('created_at', '<=', range.to)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Revenue of completed invoices per shop-local day of completion. */
export async function revenueByDay(db: Conn, shopId: number, range: Range): Promise<{ day: number; revenue: number }[]> {
  const day = localDay('invoices.completed_at', range.offsetMs);
  const rows = await completedIn(db, shopId, range)
    .select((eb) => [day.as('day'), eb.fn.sum<number>('invoices.total').as('revenue')])
    .groupBy(day)
    .execute();
  return rows.map((r) => ({ day: Number(r.day), revenue: Number(r.revenue) }));
}

/** Invoices created per shop-local day. */
export async function ordersByDay(db: Conn, shopId: number, range: Range): Promise<{ day: number; orders: number }[]> {
  const day = localDay('created_at', range.offsetMs);
  const rows = await createdIn(db, shopId, range)
    .select((eb) => [day.as('day'), eb.fn.countAll<number>().as('orders')])
    .groupBy(day)
    .execute();
  return rows.map((r) => ({ day: Number(r.day), orders: Number(r.orders) }));
}

/** Completed invoices per shop-local hour of day (0–23) of completion. */
export async function completedByHour(db: Conn, shopId: number, range: Range): Promise<{ hour: number; orders: number }[]> {
  const hour = localHour('invoices.completed_at', range.offsetMs);
  const rows = await completedIn(db, shopId, range)
    .select((eb) => [hour.as('hour'), eb.fn.countAll<number>().as('orders')])
    .groupBy(hour)
    .execute();
  return rows.map((r) => ({ hour: Number(r.hour), orders: Number(r.orders) }));
}

export async function revenueByGateway(db: Conn, shopId: number, range: Range): Promise<{ gateway: string; revenue: number; orders: number }[]> {
  const rows = await completedIn(db, shopId, range)
    .select((eb) => ['invoices.gateway', eb.fn.sum<number>('invoices.total').as('revenue'), eb.fn.countAll<number>().as('orders')])
    .groupBy('invoices.gateway')
    .orderBy('revenue', 'desc')
    .orderBy('invoices.gateway')
    .execute();
  return rows.map((r) => ({ gateway: r.gateway, revenue: Number(r.revenue), orders: Number(r.orders) }));
}

/**
 * The best-selling products by the part totals of completed invoices. Parts keep the title they
 * were sold under; a product renamed since shows the title of its latest sale.
 */
export async function topProducts(db: Conn, shopId: number, range: Range, limit: number) {
  const rows = await completedIn(db, shopId, range)
    .innerJoin('invoice_parts as p', (join) => join.onRef('p.invoice_id', '=', 'invoices.id').on('p.shop_id', '=', shopId))
    .select((eb) => [
      'p.product_id',
      eb.fn.sum<number>('p.total').as('revenue'),
      eb.fn.sum<number>('p.quantity').as('quantity'),
      eb.fn.max('p.id').as('last_part_id'),
    ])
    .groupBy('p.product_id')
    .orderBy('revenue', 'desc')
    .orderBy('quantity', 'desc')
    .orderBy('p.product_id')
    .limit(limit)
    .execute();
  const lastParts = rows.map((r) => Number(r.last_part_id));
  const titles =
    lastParts.length === 0
      ? []
      : await db.selectFrom('invoice_parts').select(['id', 'title']).where('shop_id', '=', shopId).where('id', 'in', lastParts).execute();
  const titleOf = new Map(titles.map((t) => [t.id, t.title]));
  return rows.map((r) => ({
    productId: r.product_id,
    title: titleOf.get(Number(r.last_part_id)) ?? '',
    revenue: Number(r.revenue),
    quantity: Number(r.quantity),
  }));
}

/**
 * Customers with a completed order in the range, and how many of them had completed an order
 * before (earlier in the range or before it), as in the customer stats.
 */
export async function buyersInRange(db: Conn, shopId: number, range: Range): Promise<{ buyers: number; returning: number }> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('invoices')
        .select((s) => ['customer_id', s.fn.countAll<number>().as('orders')])
        .where('shop_id', '=', shopId)
        .where('status', '=', 'completed')
        .where('completed_at', '<=', range.to)
        .groupBy('customer_id')
        .having((h) => h.fn.max('completed_at'), '>=', range.from)
        .as('b'),
    )
    .select((eb) => [eb.fn.countAll<number>().as('buyers'), eb.fn.sum<number>(eb.case().when('b.orders', '>=', 2).then(1).else(0).end()).as('returning')])
    .executeTakeFirstOrThrow();
  return { buyers: Number(row.buyers), returning: Number(row.returning ?? 0) };
}

/** Sum and count of the ratings of feedbacks left in the range. */
export async function ratings(db: Conn, shopId: number, range: Range): Promise<{ sum: number; count: number }> {
  const row = await db
    .selectFrom('feedbacks')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('rating'), eb.val(0)).as('sum'), eb.fn.countAll<number>().as('count')])
    .where('shop_id', '=', shopId)
    .where('created_at', '>=', range.from)
    .where('created_at', '<=', range.to)
    .executeTakeFirstOrThrow();
  return { sum: Number(row.sum), count: Number(row.count) };
}

/** Replacements delivered in the range and the units they replaced. */
export async function replacements(db: Conn, shopId: number, range: Range): Promise<{ count: number; units: number }> {
  const row = await db
    .selectFrom('invoice_replacements')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.coalesce(eb.fn.sum<number>('quantity'), eb.val(0)).as('units')])
    .where('shop_id', '=', shopId)
    .where('created_at', '>=', range.from)
    .where('created_at', '<=', range.to)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), units: Number(row.units) };
}

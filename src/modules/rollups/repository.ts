import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { HOUR_MS, type ShopClock, spansOfOneOffset } from './local-days.js';
import {
  type BucketRange,
  bucketRanges,
  type ClockSpec,
  type DayTotals,
  LAST_DAY,
  ROLLUP_TABLES,
  type RollupRow,
  type RollupState,
  type RollupTable,
  TOTAL_COLUMNS,
} from './rollup-rows.js';

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

export const zeroTotals = (): DayTotals => Object.fromEntries(TOTAL_COLUMNS.map((c) => [c, 0])) as DayTotals;

// ---- Keeping the rollups (rollups.ts) --------------------------------------------------------

const toState = (row: {
  generation: number | string;
  utc_offset_minutes: number | string;
  timezone: string | null;
  rebuild_offset_minutes: number | string | null;
  rebuild_timezone: string | null;
  rebuild_cursor: number | string | null;
}): RollupState => ({
  generation: Number(row.generation),
  clock: { offsetMinutes: Number(row.utc_offset_minutes), timezone: row.timezone },
  rebuildClock:
    row.rebuild_offset_minutes === null
      ? null
      : { offsetMinutes: Number(row.rebuild_offset_minutes), timezone: row.rebuild_timezone },
  rebuildCursor: row.rebuild_cursor === null ? null : Number(row.rebuild_cursor),
});

const STATE_COLUMNS = [
  'generation',
  'utc_offset_minutes',
  'timezone',
  'rebuild_offset_minutes',
  'rebuild_timezone',
  'rebuild_cursor',
] as const;

/**
 * Takes the shop's rollup lock for the rest of the transaction (a row lock on PostgreSQL; SQLite
 * runs one write transaction at a time) and answers the rollups' state, creating it on first use
 * on the shop's clock (`shopClock`: the shops module's subqueries of its offset and time zone, so
 * that the upsert every write of the shop makes stays one statement). The caller holds the shop's
 * row first (rollups.ts).
 */
export async function lockRollupState(
  db: Conn,
  shopId: number,
  shopClock: { offsetMinutes: Expression<number>; timezone: Expression<string | null> },
): Promise<RollupState> {
  const row = await db
    .insertInto('rollup_state')
    .values({
      shop_id: shopId,
      generation: 0,
      utc_offset_minutes: shopClock.offsetMinutes,
      timezone: shopClock.timezone,
    })
    .onConflict((oc) => oc.column('shop_id').doUpdateSet({ shop_id: (eb) => eb.ref('excluded.shop_id') }))
    .returning(STATE_COLUMNS)
    .executeTakeFirstOrThrow();
  return toState(row);
}

/** The rollups a read uses: the live generation and the clock of its days (the shop's when it has none yet). */
export async function rollupView(
  db: Conn,
  shopId: number,
  shopClock: ClockSpec,
): Promise<{ generation: number; clock: ClockSpec; rebuilding: boolean }> {
  const row = await db
    .selectFrom('rollup_state')
    .select(['generation', 'utc_offset_minutes', 'timezone', 'rebuild_offset_minutes'])
    .where('shop_id', '=', shopId)
    .executeTakeFirst();
  if (!row) return { generation: 0, clock: shopClock, rebuilding: false };
  return {
    generation: Number(row.generation),
    clock: { offsetMinutes: Number(row.utc_offset_minutes), timezone: row.timezone },
    rebuilding: row.rebuild_offset_minutes !== null,
  };
}

export async function setRebuild(
  db: Conn,
  shopId: number,
  rebuild: { clock: ClockSpec; cursor: number | null },
): Promise<void> {
  await db
    .updateTable('rollup_state')
    .set({
      rebuild_offset_minutes: rebuild.clock.offsetMinutes,
      rebuild_timezone: rebuild.clock.timezone,
      rebuild_cursor: rebuild.cursor,
    })
    .where('shop_id', '=', shopId)
    .execute();
}

export async function switchGeneration(db: Conn, shopId: number, generation: number, clock: ClockSpec) {
  await db
    .updateTable('rollup_state')
    .set({
      generation,
      utc_offset_minutes: clock.offsetMinutes,
      timezone: clock.timezone,
      rebuild_offset_minutes: null,
      rebuild_timezone: null,
      rebuild_cursor: null,
    })
    .where('shop_id', '=', shopId)
    .execute();
}

export async function shopsRebuilding(db: Conn): Promise<number[]> {
  const rows = await db
    .selectFrom('rollup_state')
    .select('shop_id')
    .where('rebuild_offset_minutes', 'is not', null)
    .execute();
  return rows.map((r) => r.shop_id);
}

const ADD_CHUNK = 200;

/** Adds deltas to bucket rows of one generation, creating the rows that do not exist yet. */
export async function addRollupRows(db: Conn, shopId: number, generation: number, rows: RollupRow[]): Promise<void> {
  for (const table of Object.keys(ROLLUP_TABLES) as RollupTable[]) {
    const { keys, sums, maxima } = ROLLUP_TABLES[table];
    const mine = rows.filter((r) => r.table === table);
    for (let i = 0; i < mine.length; i += ADD_CHUNK) {
      const values = mine.slice(i, i + ADD_CHUNK).map((r) => ({
        shop_id: shopId,
        generation,
        level: r.level,
        bucket: r.bucket,
        ...r.keys,
        ...Object.fromEntries(sums.map((c) => [c, r.sums[c] ?? 0])),
        ...Object.fromEntries(maxima.map((c) => [c, r.maxima[c] ?? 0])),
      }));
      const t = sql.table(table);
      // biome-ignore lint/suspicious/noExplicitAny: one query for several rollup tables of different columns
      await (db as Kysely<any>)
        .insertInto(table)
        .values(values)
        .onConflict((oc) =>
          oc.columns(['shop_id', 'generation', 'level', 'bucket', ...keys]).doUpdateSet({
            ...Object.fromEntries(sums.map((c) => [c, sql`${t}.${sql.id(c)} + excluded.${sql.id(c)}`])),
            ...Object.fromEntries(
              maxima.map((c) => [
                c,
                sql`case when excluded.${sql.id(c)} > ${t}.${sql.id(c)} then excluded.${sql.id(c)} else ${t}.${sql.id(c)} end`,
              ]),
            ),
          }),
        )
        .execute();
    }
  }
}

/** Deletes up to `limit` rows per table of generations other than `live`; true when some may be left. */
export async function deleteStaleRows(db: Conn, shopId: number, live: number, limit: number): Promise<boolean> {
  let more = false;
  for (const table of Object.keys(ROLLUP_TABLES) as RollupTable[]) {
    const key = ['generation', 'level', 'bucket', ...ROLLUP_TABLES[table].keys];
    const result =
      await sql`delete from ${sql.table(table)} where shop_id = ${shopId} and (${sql.join(key.map((k) => sql.id(k)))}) in (
      select ${sql.join(key.map((k) => sql.id(k)))} from ${sql.table(table)} where shop_id = ${shopId} and generation <> ${live} limit ${sql.lit(limit)})`.execute(
        db,
      );
    if (Number(result.numAffectedRows ?? 0) >= limit) more = true;
  }
  return more;
}

/**
 * Where a rebuild's batch from `from` ends (exclusive): the creation time of the invoice after
 * the next `size`, or null when fewer are left (the batch takes everything from `from` on).
 */
export async function sourceWindowEnd(db: Conn, shopId: number, from: number, size: number): Promise<number | null> {
  const after = (at: number, offset: number) =>
    db
      .selectFrom('invoices')
      .select('created_at')
      .where('shop_id', '=', shopId)
      .where('created_at', '>=', at)
      .orderBy('created_at')
      .limit(1)
      .offset(offset)
      .executeTakeFirst();
  const row = await after(from, size);
  if (!row) return null;
  const end = Number(row.created_at);
  if (end > from) return end;
  // More than a batch created at the same instant: they go together.
  const next = await after(from + 1, 0);
  return next ? Number(next.created_at) : null;
}

/** Every source row of the rollups created in [from, to) (to null: open), as it stands now. */
export async function sourcesCreatedIn(db: Conn, shopId: number, from: number, to: number | null) {
  const inWindow = <T extends 'invoices' | 'customers' | 'feedbacks' | 'invoice_replacements' | 'invoice_refunds'>(
    table: T,
  ) => {
    // biome-ignore lint/suspicious/noExplicitAny: one query for several rollup tables of different columns
    let query = (db as Kysely<any>)
      .selectFrom(table as string)
      .where('shop_id', '=', shopId)
      .where('created_at', '>=', from);
    if (to !== null) query = query.where('created_at', '<', to);
    return query;
  };
  const [invoices, customers, feedbacks, replacements, refunds] = await Promise.all([
    inWindow('invoices')
      .select(['id', 'created_at', 'status', 'gateway', 'total', 'completed_at', 'repeat_purchase'])
      .execute() as Promise<
      {
        id: string;
        created_at: number;
        status: string;
        gateway: string;
        total: number;
        completed_at: number | null;
        repeat_purchase: number | null;
      }[]
    >,
    inWindow('customers').select('created_at').execute() as Promise<{ created_at: number }[]>,
    inWindow('feedbacks')
      .select(['created_at', 'rating'])
      .where('id', 'not in', (eb: ExpressionBuilder<Database, 'feedback_appeals'>) =>
        eb
          .selectFrom('feedback_appeals')
          .select('feedback_id')
          .where('shop_id', '=', shopId)
          .where('status', '=', 'accepted'),
      )
      .execute() as Promise<{ created_at: number; rating: number }[]>,
    inWindow('invoice_replacements').select(['created_at', 'quantity']).execute() as Promise<
      { created_at: number; quantity: number }[]
    >,
    inWindow('invoice_refunds').select(['created_at', 'amount']).where('status', '=', 'succeeded').execute() as Promise<
      { created_at: number; amount: number }[]
    >,
  ]);
  const completed = invoices.filter((i) => i.status === 'completed').map((i) => i.id);
  // `+shop_id` leaves the invoice index the only one the parts can be read through.
  const parts =
    completed.length === 0
      ? []
      : await db
          .selectFrom('invoice_parts')
          .select(['id', 'invoice_id', 'product_id', 'quantity', 'total'])
          .where('invoice_id', 'in', completed)
          .where(sql<number>`+shop_id`, '=', shopId)
          .execute();
  const partsOf = new Map<string, { id: number; productId: number; quantity: number; total: number }[]>();
  for (const p of parts) {
    const list = partsOf.get(p.invoice_id) ?? [];
    list.push({ id: Number(p.id), productId: p.product_id, quantity: Number(p.quantity), total: Number(p.total) });
    partsOf.set(p.invoice_id, list);
  }
  return [
    ...invoices.map((i) => ({
      kind: 'invoice' as const,
      createdAt: Number(i.created_at),
      status: i.status,
      gateway: i.gateway,
      total: Number(i.total),
      completedAt: i.completed_at === null ? null : Number(i.completed_at),
      repeatPurchase: Number(i.repeat_purchase ?? 0) === 1,
      parts: partsOf.get(i.id) ?? [],
    })),
    ...customers.map((c) => ({ kind: 'customer' as const, createdAt: Number(c.created_at) })),
    ...feedbacks.map((f) => ({ kind: 'feedback' as const, createdAt: Number(f.created_at), rating: Number(f.rating) })),
    ...replacements.map((r) => ({
      kind: 'replacement' as const,
      createdAt: Number(r.created_at),
      quantity: Number(r.quantity),
    })),
    ...refunds.map((r) => ({ kind: 'refund' as const, createdAt: Number(r.created_at), amount: Number(r.amount) })),
  ];
}

// ---- Reading the rollups ---------------------------------------------------------------------

/** The live rollups of one shop. */
export interface Rollups {
  shopId: number;
  generation: number;
}

/** Whole local days first…last, both bounded. */
export interface WholeDays {
  first: number;
  last: number;
}

/** Rows of the buckets that make up days first…last (either open when null). */
function inBuckets(ranges: BucketRange[]) {
  // biome-ignore lint/suspicious/noExplicitAny: one query for several rollup tables of different columns
  return (eb: ExpressionBuilder<any, any>): Expression<SqlBool> =>
    eb.or(ranges.map((r) => eb.and([eb('level', '=', r.level), eb('bucket', '>=', r.lo), eb('bucket', '<=', r.hi)])));
}

const bucketsOf = (days: { first: number | null; last: number | null }) =>
  bucketRanges(days.first ?? 0, days.last ?? LAST_DAY);

function ofShop<T extends RollupTable>(
  db: Conn,
  table: T,
  rollups: Rollups,
  days: { first: number | null; last: number | null },
) {
  // biome-ignore lint/suspicious/noExplicitAny: one query for several rollup tables of different columns
  return (db as Kysely<any>)
    .selectFrom(table as string)
    .where('shop_id', '=', rollups.shopId)
    .where('generation', '=', rollups.generation)
    .where(inBuckets(bucketsOf(days)));
}

export async function rollupTotals(db: Conn, rollups: Rollups, days: WholeDays): Promise<DayTotals> {
  const row = (await ofShop(db, 'rollup_totals', rollups, days)
    .select(TOTAL_COLUMNS.map((c) => sql<number>`coalesce(sum(${sql.id(c)}), 0)`.as(c)))
    .executeTakeFirst()) as Record<string, unknown> | undefined;
  return Object.fromEntries(TOTAL_COLUMNS.map((c) => [c, Number(row?.[c] ?? 0)])) as DayTotals;
}

/** Revenue (by completion) and invoices created, per day of `first…last` that has any. */
export async function rollupSeries(
  db: Conn,
  rollups: Rollups,
  days: WholeDays,
): Promise<Map<number, { revenue: number; orders: number }>> {
  const rows = await db
    .selectFrom('rollup_totals')
    .select(['bucket', 'revenue', 'created_orders'])
    .where('shop_id', '=', rollups.shopId)
    .where('generation', '=', rollups.generation)
    .where('level', '=', 0)
    .where('bucket', '>=', days.first)
    .where('bucket', '<=', days.last)
    .execute();
  return new Map(rows.map((r) => [r.bucket, { revenue: Number(r.revenue), orders: Number(r.created_orders) }]));
}

/** Units and part totals of completed invoices per product, best first; `limit` cuts the list. */
export async function rollupProducts(
  db: Conn,
  rollups: Rollups,
  days: WholeDays,
  limit?: number,
): Promise<ProductSales[]> {
  const revenue = sql<number>`sum(revenue)`;
  const quantity = sql<number>`sum(quantity)`;
  let query = ofShop(db, 'rollup_products', rollups, days)
    .select([
      'product_id',
      revenue.as('revenue'),
      quantity.as('quantity'),
      sql<number>`max(last_part_id)`.as('last_part_id'),
    ])
    .groupBy('product_id')
    .having(quantity, '>', 0)
    .orderBy(revenue, 'desc')
    .orderBy(quantity, 'desc')
    .orderBy('product_id');
  if (limit !== undefined) query = query.limit(limit);
  const rows = (await query.execute()) as {
    product_id: number;
    revenue: unknown;
    quantity: unknown;
    last_part_id: unknown;
  }[];
  return rows.map((r) => ({
    productId: r.product_id,
    revenue: Number(r.revenue),
    quantity: Number(r.quantity),
    lastPartId: Number(r.last_part_id),
  }));
}

/** The highest part id of each product sold up to the end of local day `day`. */
export async function rollupLastParts(
  db: Conn,
  rollups: Rollups,
  day: number,
  productIds: number[],
): Promise<Map<number, number>> {
  if (productIds.length === 0) return new Map();
  const rows = (await ofShop(db, 'rollup_products', rollups, { first: null, last: day })
    .select(['product_id', sql<number>`max(last_part_id)`.as('last_part_id')])
    .where('product_id', 'in', productIds)
    .groupBy('product_id')
    .execute()) as { product_id: number; last_part_id: unknown }[];
  return new Map(rows.map((r) => [r.product_id, Number(r.last_part_id)]));
}

/** Completed invoices per local hour of completion. */
export async function rollupHours(
  db: Conn,
  rollups: Rollups,
  days: WholeDays,
): Promise<{ hour: number; orders: number }[]> {
  const rows = (await ofShop(db, 'rollup_hours', rollups, days)
    .select(['hour', sql<number>`sum(orders)`.as('orders')])
    .groupBy('hour')
    .execute()) as { hour: number; orders: unknown }[];
  return rows.map((r) => ({ hour: Number(r.hour), orders: Number(r.orders) }));
}

/** Completed invoices and their totals per gateway. */
export async function rollupGateways(
  db: Conn,
  rollups: Rollups,
  days: WholeDays,
): Promise<{ gateway: string; revenue: number; orders: number }[]> {
  const orders = sql<number>`sum(orders)`;
  const rows = (await ofShop(db, 'rollup_gateways', rollups, days)
    .select(['gateway', sql<number>`sum(revenue)`.as('revenue'), orders.as('orders')])
    .groupBy('gateway')
    .having(orders, '>', 0)
    .execute()) as { gateway: string; revenue: unknown; orders: unknown }[];
  return rows.map((r) => ({ gateway: r.gateway, revenue: Number(r.revenue), orders: Number(r.orders) }));
}

/**
 * Invoices created on the whole local days of `days` (either end open when null), optionally of
 * one status and gateway: the owner list's totalCount without counting the invoices.
 */
export async function countCreatedInvoices(
  db: Conn,
  rollups: Rollups,
  days: { first: number | null; last: number | null },
  filter: { status?: string | undefined; gateway?: string | undefined },
): Promise<number> {
  let query = ofShop(db, 'rollup_invoice_counts', rollups, days).select(
    sql<number>`coalesce(sum(invoices), 0)`.as('n'),
  );
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.gateway) query = query.where('gateway', '=', filter.gateway);
  const row = (await query.executeTakeFirst()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
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
  const [created, completed, units, customers, feedbacks, replacements, refunds] = await Promise.all([
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
      // Not those hidden by an accepted appeal, as the rollups (feedback.withdrawn, subscribers.ts).
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
    db
      .selectFrom('invoice_refunds')
      .select((eb) => [eb.fn.countAll<number>().as('refunds'), eb.fn.sum<number>('amount').as('refunded')])
      .where('shop_id', '=', shopId)
      .where('status', '=', 'succeeded')
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
    ...refunds,
  };
  return Object.fromEntries(TOTAL_COLUMNS.map((c) => [c, Number(totals[c] ?? 0)])) as DayTotals;
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
/** Completed invoices per local hour of the range (one local day at most: an edge of a dashboard's range). */
export async function rawHours(
  db: Conn,
  shopId: number,
  range: Range,
  clock: ShopClock,
): Promise<{ hour: number; orders: number }[]> {
  const counts = new Map<number, number>();
  for (const span of spansOfOneOffset(range, clock)) {
    const hour = sql<number>`(((invoices.completed_at + ${sql.lit(Math.trunc(span.offsetMs))}) / ${sql.lit(HOUR_MS)}) % 24)`;
    const rows = await completedIn(db, shopId, span)
      .select((eb) => [hour.as('hour'), eb.fn.countAll<number>().as('orders')])
      .groupBy(hour)
      .execute();
    for (const r of rows) counts.set(Number(r.hour), (counts.get(Number(r.hour)) ?? 0) + Number(r.orders));
  }
  return [...counts].map(([hour, orders]) => ({ hour, orders }));
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

// ---- Buyers of a range (figures.ts, buyersOfRange), from the raw rows ------------------------

/**
 * Customers who completed an order in the range after an earlier completed one (earlier in the
 * range or before it).
 */
export async function countReturningBuyers(db: Conn, shopId: number, range: Range): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('invoices')
        .select('customer_id')
        .where('shop_id', '=', shopId)
        .where('status', '=', 'completed')
        .where('completed_at', '<=', range.to)
        .groupBy('customer_id')
        .having((h) => h.fn.countAll(), '>=', 2)
        .having((h) => h.fn.max('completed_at'), '>=', range.from)
        .as('r'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The `limit` customers who spent most on orders completed in the range, then by id. */
export async function topBuyers(
  db: Conn,
  shopId: number,
  range: Range,
  limit: number,
): Promise<{ customerId: number; email: string; spent: number; orders: number }[]> {
  const rows = await db
    .selectFrom('invoices')
    .innerJoin('customers', 'customers.id', 'invoices.customer_id')
    .select((eb) => [
      'customers.id',
      'customers.email',
      eb.fn.sum<number>('invoices.total').as('spent'),
      eb.fn.countAll<number>().as('orders'),
    ])
    .where('invoices.shop_id', '=', shopId)
    .where('invoices.status', '=', 'completed')
    .where('invoices.completed_at', '>=', range.from)
    .where('invoices.completed_at', '<=', range.to)
    .groupBy(['customers.id', 'customers.email'])
    .orderBy('spent', 'desc')
    .orderBy('customers.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ customerId: r.id, email: r.email, spent: Number(r.spent), orders: Number(r.orders) }));
}

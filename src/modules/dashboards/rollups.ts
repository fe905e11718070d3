import { type CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import { heavyWrite } from '../../db/heavy-write.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { fillRepeatPurchases } from '../invoices/repository.js';
import { findShop } from '../shops/repository.js';
import { DAY_MS, type DaySpan, HOUR_MS, localDayOf, localHourOf } from './local-days.js';

type Conn = Kysely<Database>;

/**
 * Dashboard rollups, maintained in the same transaction as every write that changes them, so the
 * dashboards and the invoice list's totalCount read a handful of rows instead of every invoice.
 *
 * Each rollup is a series of cumulative snapshots per shop-local day: the row of day d holds the
 * totals up to the end of day d, and a snapshot exists for every day on which something was
 * rolled up (days without a snapshot changed nothing). The figure of days a…b is then
 * snapshot(≤ b) − snapshot(≤ a − 1): two rows per key, whatever the length of the range — one
 * row of `rollup_days`, 2 × products of `rollup_products`, 2 × 24 of `rollup_hours`. Every
 * snapshot holds a row for every key seen up to then (a new day starts as a copy of the latest
 * snapshot before it), so both snapshots are contiguous index ranges.
 *
 * A write on day d adds its deltas to every snapshot from d on: usually only today's, but a
 * status move of an invoice created yesterday also reaches yesterday's. Writers of one shop take
 * the `rollup_state` row first (a row lock on PostgreSQL; SQLite runs one write transaction at a
 * time), always as the last step of their transaction, which orders them and lets a timezone
 * change rebuild a shop's rollups (`rebuildRollups`) without losing a concurrent write.
 */

/** The measures of `rollup_days`. */
export const DAY_COLUMNS = [
  'created_orders',
  'created_pending',
  'created_completed',
  'completed_orders',
  'revenue',
  'units_sold',
  'repeat_orders',
  'new_customers',
  'feedbacks',
  'rating_sum',
  'replacements',
  'replaced_units',
] as const;
export type DayColumn = (typeof DAY_COLUMNS)[number];
export type DayTotals = Record<DayColumn, number>;

/** The keyed rollups: key columns, summed measures and running maxima. */
const KEYED = {
  rollup_products: { keys: ['product_id'], sums: ['revenue', 'quantity'], maxima: ['last_part_id'] },
  rollup_hours: { keys: ['hour'], sums: ['orders'], maxima: [] },
  rollup_gateways: { keys: ['gateway'], sums: ['revenue', 'orders'], maxima: [] },
  rollup_invoice_counts: { keys: ['status', 'gateway'], sums: ['invoices'], maxima: [] },
} as const satisfies Record<string, { keys: readonly string[]; sums: readonly string[]; maxima: readonly string[] }>;
type KeyedTable = keyof typeof KEYED;
const KEYED_TABLES = Object.keys(KEYED) as KeyedTable[];
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['gateway', 'status']);

const columnsOf = (table: KeyedTable): string[] => [...KEYED[table].keys, ...KEYED[table].sums, ...KEYED[table].maxima];
const ids = (names: readonly string[], prefix?: string) =>
  sql.join(names.map((n) => (prefix ? sql.ref(`${prefix}.${n}`) : sql.id(n))));
/** A bound value typed for both engines (PostgreSQL cannot infer a bare parameter's type in a select list). */
const typed = (column: string, value: string | number) =>
  TEXT_COLUMNS.has(column) ? sql`cast(${value} as text)` : sql`cast(${value} as bigint)`;

/**
 * Takes the shop's rollup lock for the rest of the transaction and answers the UTC offset (ms) the
 * rollups are keyed by (a rebuild sets it: `rebuildStatements`).
 */
async function lockRollups(db: Conn, shopId: number): Promise<number> {
  const row = await db
    .insertInto('rollup_state')
    .columns(['shop_id', 'utc_offset_minutes'])
    .expression(db.selectFrom('shops').select(['id', 'utc_offset_minutes']).where('id', '=', shopId))
    .onConflict((oc) => oc.column('shop_id').doUpdateSet({ shop_id: (eb) => eb.ref('excluded.shop_id') }))
    .returning('utc_offset_minutes')
    .executeTakeFirstOrThrow();
  return row.utc_offset_minutes * 60_000;
}

/** The latest snapshot day at or before `day` (any, when null), as a scalar subquery. */
export function snapshotAt(db: Conn, shopId: number, day: number | null) {
  let query = db
    .selectFrom('rollup_days')
    .select((eb) => eb.fn.max('day').as('day'))
    .where('shop_id', '=', shopId);
  if (day !== null) query = query.where('day', '<=', day);
  return query;
}

/** Makes each day a snapshot: a copy of the latest one before it, or zeros. */
async function ensureSnapshots(db: Conn, shopId: number, days: number[]): Promise<void> {
  for (const day of new Set(days)) {
    const floor = (await snapshotAt(db, shopId, day).executeTakeFirst())?.day ?? null;
    if (floor === day) continue;
    if (floor === null) {
      await db
        .insertInto('rollup_days')
        .values({ shop_id: shopId, day, ...Object.fromEntries(DAY_COLUMNS.map((c) => [c, 0])) } as DayTotals & {
          shop_id: number;
          day: number;
        })
        .execute();
      continue;
    }
    const copy = async (table: string, columns: readonly string[]) => {
      await sql`insert into ${sql.table(table)} (shop_id, day, ${ids(columns)})
        select shop_id, cast(${day} as integer), ${ids(columns)} from ${sql.table(table)} where shop_id = ${shopId} and day = ${floor}`.execute(
        db,
      );
    };
    await copy('rollup_days', DAY_COLUMNS);
    for (const table of KEYED_TABLES) await copy(table, columnsOf(table));
  }
}

/** Adds deltas to `rollup_days` from each entry's day on (one statement). */
async function addToDays(
  db: Conn,
  shopId: number,
  entries: { from: number; deltas: Partial<DayTotals> }[],
): Promise<void> {
  const start = Math.min(...entries.map((e) => e.from));
  const set: Record<string, RawBuilder<number>> = {};
  for (const column of DAY_COLUMNS) {
    const terms = entries
      .filter((e) => e.deltas[column])
      .map((e) =>
        e.from === start
          ? sql`cast(${e.deltas[column]} as bigint)`
          : sql`case when day >= ${e.from} then cast(${e.deltas[column]} as bigint) else 0 end`,
      );
    if (terms.length > 0) set[column] = sql<number>`${sql.ref(column)} + ${sql.join(terms, sql` + `)}`;
  }
  if (Object.keys(set).length === 0) return;
  await db.updateTable('rollup_days').set(set).where('shop_id', '=', shopId).where('day', '>=', start).execute();
}

/** Adds keyed deltas to every snapshot from `from` on, creating the keys' rows where missing. */
async function addToKeyed(
  db: Conn,
  shopId: number,
  table: KeyedTable,
  from: number,
  rows: Record<string, string | number>[],
): Promise<void> {
  if (rows.length === 0) return;
  const { keys, sums, maxima } = KEYED[table];
  const columns = columnsOf(table);
  const deltas = sql.join(
    rows.map((row) => sql`select ${sql.join(columns.map((c) => sql`${typed(c, row[c]!)} as ${sql.id(c)}`))}`),
    sql` union all `,
  );
  const updates = [
    ...sums.map((c) => sql`${sql.id(c)} = ${sql.ref(`${table}.${c}`)} + excluded.${sql.id(c)}`),
    ...maxima.map(
      (c) =>
        sql`${sql.id(c)} = case when excluded.${sql.id(c)} > ${sql.ref(`${table}.${c}`)} then excluded.${sql.id(c)} else ${sql.ref(`${table}.${c}`)} end`,
    ),
  ];
  await sql`insert into ${sql.table(table)} (shop_id, day, ${ids(columns)})
    select d.shop_id, d.day, ${ids(columns, 'x')} from rollup_days d cross join (${deltas}) x
    where d.shop_id = ${shopId} and d.day >= ${from}
    on conflict (shop_id, day, ${ids(keys)}) do update set ${sql.join(updates)}`.execute(db);
}

/** A new pending invoice (and, on first sight, its customer), in the checkout transaction. */
export async function recordCheckout(
  db: Conn,
  shopId: number,
  invoice: { createdAt: number; gateway: string; newCustomer: boolean },
): Promise<void> {
  const offsetMs = await lockRollups(db, shopId);
  const day = localDayOf(invoice.createdAt, offsetMs);
  await ensureSnapshots(db, shopId, [day]);
  await addToDays(db, shopId, [
    { from: day, deltas: { created_orders: 1, created_pending: 1, new_customers: invoice.newCustomer ? 1 : 0 } },
  ]);
  await addToKeyed(db, shopId, 'rollup_invoice_counts', day, [
    { status: 'pending', gateway: invoice.gateway, invoices: 1 },
  ]);
}

/** A completion, in the completion transaction: by creation day the status counts, by completion day the sales. */
export async function recordCompletion(
  db: Conn,
  shopId: number,
  invoice: { createdAt: number; completedAt: number; gateway: string; total: number; repeatPurchase: boolean },
  parts: { id: number; product_id: number; quantity: number; total: number }[],
): Promise<void> {
  const offsetMs = await lockRollups(db, shopId);
  const created = localDayOf(invoice.createdAt, offsetMs);
  const completed = localDayOf(invoice.completedAt, offsetMs);
  await ensureSnapshots(db, shopId, [created, completed]);
  const units = parts.reduce((sum, p) => sum + p.quantity, 0);
  await addToDays(db, shopId, [
    { from: created, deltas: { created_pending: -1, created_completed: 1 } },
    {
      from: completed,
      deltas: {
        completed_orders: 1,
        revenue: invoice.total,
        units_sold: units,
        repeat_orders: invoice.repeatPurchase ? 1 : 0,
      },
    },
  ]);
  await addToKeyed(db, shopId, 'rollup_invoice_counts', created, [
    { status: 'pending', gateway: invoice.gateway, invoices: -1 },
    { status: 'completed', gateway: invoice.gateway, invoices: 1 },
  ]);
  const products = new Map<number, { product_id: number; revenue: number; quantity: number; last_part_id: number }>();
  for (const part of parts) {
    const sold = products.get(part.product_id) ?? {
      product_id: part.product_id,
      revenue: 0,
      quantity: 0,
      last_part_id: 0,
    };
    sold.revenue += part.total;
    sold.quantity += part.quantity;
    sold.last_part_id = Math.max(sold.last_part_id, part.id);
    products.set(part.product_id, sold);
  }
  await addToKeyed(db, shopId, 'rollup_products', completed, [...products.values()]);
  await addToKeyed(db, shopId, 'rollup_hours', completed, [
    { hour: localHourOf(invoice.completedAt, offsetMs), orders: 1 },
  ]);
  await addToKeyed(db, shopId, 'rollup_gateways', completed, [
    { gateway: invoice.gateway, revenue: invoice.total, orders: 1 },
  ]);
}

/** A pending invoice that expired or was cancelled, in the transaction that ends it. */
export async function recordUnpaidEnd(
  db: Conn,
  shopId: number,
  invoice: { createdAt: number; gateway: string },
  status: 'expired' | 'cancelled',
): Promise<void> {
  const offsetMs = await lockRollups(db, shopId);
  const created = localDayOf(invoice.createdAt, offsetMs);
  await ensureSnapshots(db, shopId, [created]);
  await addToDays(db, shopId, [{ from: created, deltas: { created_pending: -1 } }]);
  await addToKeyed(db, shopId, 'rollup_invoice_counts', created, [
    { status: 'pending', gateway: invoice.gateway, invoices: -1 },
    { status, gateway: invoice.gateway, invoices: 1 },
  ]);
}

async function addOnDay(db: Conn, shopId: number, at: number, deltas: Partial<DayTotals>): Promise<void> {
  const offsetMs = await lockRollups(db, shopId);
  const day = localDayOf(at, offsetMs);
  await ensureSnapshots(db, shopId, [day]);
  await addToDays(db, shopId, [{ from: day, deltas }]);
}

export function recordFeedback(
  db: Conn,
  shopId: number,
  feedback: { rating: number; createdAt: number },
): Promise<void> {
  return addOnDay(db, shopId, feedback.createdAt, { feedbacks: 1, rating_sum: feedback.rating });
}

/** A feedback hidden by an accepted appeal: it no longer counts, from the day it was left. */
export function recordFeedbackWithdrawn(
  db: Conn,
  shopId: number,
  feedback: { rating: number; createdAt: number },
): Promise<void> {
  return addOnDay(db, shopId, feedback.createdAt, { feedbacks: -1, rating_sum: -feedback.rating });
}

export function recordReplacement(
  db: Conn,
  shopId: number,
  replacement: { quantity: number; createdAt: number },
): Promise<void> {
  return addOnDay(db, shopId, replacement.createdAt, { replacements: 1, replaced_units: replacement.quantity });
}

interface CountParams {
  shopId: number;
  last: number | null;
  beforeFirst: number | null;
  status: string;
  gateway: string;
}

/**
 * The owner's invoice list asks this on every page, in one of eight shapes: a range open or
 * bounded at either end, with or without a status and a gateway. Each is built once (`prepared`).
 */
const countQueries = new Map<string, (db: Conn, params: CountParams) => Promise<{ n: number }[]>>();
function countQuery(shape: { from: boolean; to: boolean; status: boolean; gateway: boolean }) {
  const key = `${shape.from}${shape.to}${shape.status}${shape.gateway}`;
  let query = countQueries.get(key);
  if (!query) {
    query = prepared((db, p: CountParams) => {
      const lo = shape.from ? snapshotAt(db, p.shopId, p.beforeFirst) : sql<number>`null`;
      let q = db
        .selectFrom('rollup_invoice_counts as h')
        .leftJoin('rollup_invoice_counts as l', (join) =>
          join
            .onRef('l.shop_id', '=', 'h.shop_id')
            .onRef('l.status', '=', 'h.status')
            .onRef('l.gateway', '=', 'h.gateway')
            .on('l.day', '=', lo),
        )
        .select(sql<number>`coalesce(sum(h.invoices - coalesce(l.invoices, 0)), 0)`.as('n'))
        .where('h.shop_id', '=', p.shopId)
        .where('h.day', '=', snapshotAt(db, p.shopId, shape.to ? p.last : null));
      if (shape.status) q = q.where('h.status', '=', p.status);
      if (shape.gateway) q = q.where('h.gateway', '=', p.gateway);
      return q;
    });
    countQueries.set(key, query);
  }
  return query;
}

/**
 * Invoices created on the whole local days of `days` (created-day snapshots), optionally of one
 * status and gateway: the owner list's totalCount without counting the invoices.
 */
export async function countCreatedInvoices(
  db: Conn,
  shopId: number,
  days: DaySpan,
  filter: { status?: string | undefined; gateway?: string | undefined },
): Promise<number> {
  const shape = {
    from: days.first !== null,
    to: days.last !== null,
    status: Boolean(filter.status),
    gateway: Boolean(filter.gateway),
  };
  const [row] = await countQuery(shape)(db, {
    shopId,
    last: days.last,
    beforeFirst: days.first === null ? null : days.first - 1,
    status: filter.status ?? '',
    gateway: filter.gateway ?? '',
  });
  return Number(row!.n);
}

/*
 * Rebuilding from the raw rows. Integer division on both engines needs integer operands: the
 * offset and divisors are literals (better-sqlite3 binds every JS number as REAL).
 */
const localDay = (column: string, offsetMs: number) =>
  sql<number>`((${sql.ref(column)} + ${sql.lit(offsetMs)}) / ${sql.lit(DAY_MS)})`;
const localHour = (column: string, offsetMs: number) =>
  sql<number>`(((${sql.ref(column)} + ${sql.lit(offsetMs)}) / ${sql.lit(HOUR_MS)}) % 24)`;

/**
 * The parts of the shop's completed invoices, `i` and `p`. SQLite takes a CROSS JOIN's tables in
 * the order written: the completed invoices in index order, then each one's parts through the
 * parts' invoice index. Both then advance through their pages in step, where probing the
 * invoices' text primary key once per part, in part order, jumps about the whole table: on a
 * million invoices, 3 s against 6–7 s per statement. `+p.shop_id` leaves the invoice index the
 * only one the parts can be read through: right after a bulk load SQLite has no statistics, and
 * could otherwise read all the shop's parts for every invoice. PostgreSQL plans a cross join with
 * a join condition like any inner join.
 */
const completedParts = (shopId: number) =>
  sql`from invoices i cross join invoice_parts p where p.invoice_id = i.id and +p.shop_id = ${shopId} and i.shop_id = ${shopId} and i.status = 'completed'`;

/** One source of day totals: the given measures (others 0) grouped by `day`. */
function daySource(
  day: RawBuilder<number>,
  measures: Partial<Record<DayColumn, RawBuilder<unknown>>>,
  from: RawBuilder<unknown>,
) {
  const select = DAY_COLUMNS.map((c) => sql`${measures[c] ?? sql`0`} as ${sql.id(c)}`);
  return sql`select ${day} as day, ${sql.join(select)} ${from} group by ${day}`;
}

function rebuildDays(db: Conn, shopId: number, offsetMs: number): CompiledQuery {
  const created = localDay('created_at', offsetMs);
  const completed = localDay('completed_at', offsetMs);
  const sources = [
    daySource(
      created,
      {
        created_orders: sql`count(*)`,
        created_pending: sql`sum(case when status = 'pending' then 1 else 0 end)`,
        created_completed: sql`sum(case when status = 'completed' then 1 else 0 end)`,
      },
      sql`from invoices where shop_id = ${shopId}`,
    ),
    daySource(
      completed,
      {
        completed_orders: sql`count(*)`,
        revenue: sql`sum(total)`,
        repeat_orders: sql`sum(coalesce(repeat_purchase, 0))`,
      },
      sql`from invoices where shop_id = ${shopId} and status = 'completed'`,
    ),
    daySource(localDay('i.completed_at', offsetMs), { units_sold: sql`sum(p.quantity)` }, completedParts(shopId)),
    daySource(created, { new_customers: sql`count(*)` }, sql`from customers where shop_id = ${shopId}`),
    daySource(
      created,
      { feedbacks: sql`count(*)`, rating_sum: sql`sum(rating)` },
      // A feedback hidden by an accepted appeal is not counted (recordFeedbackWithdrawn).
      sql`from feedbacks where shop_id = ${shopId} and id not in (select feedback_id from feedback_appeals where shop_id = ${shopId} and status = 'accepted')`,
    ),
    daySource(
      created,
      { replacements: sql`count(*)`, replaced_units: sql`sum(quantity)` },
      sql`from invoice_replacements where shop_id = ${shopId}`,
    ),
  ];
  return sql`insert into rollup_days (shop_id, day, ${ids(DAY_COLUMNS)})
    select cast(${shopId} as integer), e.day, ${sql.join(DAY_COLUMNS.map((c) => sql`sum(sum(${sql.ref(`e.${c}`)})) over w`))}
    from (${sql.join(sources, sql` union all `)}) e
    group by e.day
    window w as (order by e.day rows between unbounded preceding and current row)`.compile(db);
}

/** What each keyed rollup adds per day and key, from the raw rows. */
function keyedDeltas(table: KeyedTable, shopId: number, offsetMs: number): RawBuilder<unknown> {
  const completedDay = localDay('completed_at', offsetMs);
  switch (table) {
    case 'rollup_products': {
      const day = localDay('i.completed_at', offsetMs);
      return sql`select ${day} as day, p.product_id, sum(p.total) as revenue, sum(p.quantity) as quantity, max(p.id) as last_part_id
        ${completedParts(shopId)} group by ${day}, p.product_id`;
    }
    case 'rollup_hours': {
      const hour = localHour('completed_at', offsetMs);
      return sql`select ${completedDay} as day, ${hour} as hour, count(*) as orders
        from invoices where shop_id = ${shopId} and status = 'completed' group by ${completedDay}, ${hour}`;
    }
    case 'rollup_gateways':
      return sql`select ${completedDay} as day, gateway, sum(total) as revenue, count(*) as orders
        from invoices where shop_id = ${shopId} and status = 'completed' group by ${completedDay}, gateway`;
    case 'rollup_invoice_counts': {
      const createdDay = localDay('created_at', offsetMs);
      return sql`select ${createdDay} as day, status, gateway, count(*) as invoices from invoices where shop_id = ${shopId} group by ${createdDay}, status, gateway`;
    }
  }
}

/** Every snapshot day (already in rollup_days) × every key seen by then, with running totals. */
function rebuildKeyed(db: Conn, shopId: number, table: KeyedTable, offsetMs: number): CompiledQuery {
  const { keys, sums, maxima } = KEYED[table];
  const measures = [
    ...sums.map((c) => sql`sum(coalesce(${sql.ref(`x.${c}`)}, 0)) over w`),
    ...maxima.map((c) => sql`max(${sql.ref(`x.${c}`)}) over w`),
  ];
  const sameKey = sql.join(
    keys.map((k) => sql`${sql.ref(`x.${k}`)} = ${sql.ref(`f.${k}`)}`),
    sql` and `,
  );
  return sql`insert into ${sql.table(table)} (shop_id, day, ${ids(columnsOf(table))})
    with deltas as (${keyedDeltas(table, shopId, offsetMs)}),
      firsts as (select ${ids(keys)}, min(day) as first_day from deltas group by ${ids(keys)})
    select d.shop_id, d.day, ${ids(keys, 'f')}, ${sql.join(measures)}
    from rollup_days d
    join firsts f on d.day >= f.first_day
    left join deltas x on x.day = d.day and ${sameKey}
    where d.shop_id = ${shopId}
    window w as (partition by ${ids(keys, 'f')} order by d.day rows between unbounded preceding and current row)`.compile(
    db,
  );
}

/**
 * The statements that rebuild every rollup of one shop from its raw rows, keyed by the UTC offset
 * `offsetMinutes` (the shop's, or the one its transaction is setting): the rollup lock, then
 * deletes and one insert per rollup table, each a single statement over the whole shop. They
 * read every invoice of the shop, so they are run with `heavyWrite`, off the event loop on
 * SQLite. Completed invoices need their repeat-purchase flags: every completion sets its own,
 * and `rebuildRollups` fills those of rows inserted in bulk.
 */
export function rebuildStatements(db: Conn, shopId: number, offsetMinutes: number): CompiledQuery[] {
  const offsetMs = offsetMinutes * 60_000;
  return [
    db
      .insertInto('rollup_state')
      .values({ shop_id: shopId, utc_offset_minutes: offsetMinutes })
      .onConflict((oc) =>
        oc.column('shop_id').doUpdateSet({ utc_offset_minutes: (eb) => eb.ref('excluded.utc_offset_minutes') }),
      )
      .compile(),
    // These statements read whole shops: hash joins, never a nested loop per invoice, which
    // PostgreSQL would pick on tables without statistics yet (right after a bulk load).
    ...(isPostgres(db) ? [sql`set local enable_nestloop = off`.compile(db)] : []),
    ...[...KEYED_TABLES, 'rollup_days' as const].map((table) =>
      db.deleteFrom(table).where('shop_id', '=', shopId).compile(),
    ),
    rebuildDays(db, shopId, offsetMs),
    ...KEYED_TABLES.map((table) => rebuildKeyed(db, shopId, table, offsetMs)),
  ];
}

/**
 * Rebuilds every rollup of one shop from its raw rows, in the shop's current timezone: first the
 * repeat-purchase flags of completed invoices that have none (rows inserted in bulk), then the
 * snapshots. Used by seeders that insert raw rows, by the migration that introduced rollups and
 * by tests that compare maintained rollups with rebuilt ones. Runs in the caller's transaction,
 * or in its own (off the event loop on SQLite).
 */
export async function rebuildRollups(db: Kysely<Database>, shopId: number): Promise<void> {
  await fillRepeatPurchases(db, shopId);
  const statements = rebuildStatements(db, shopId, (await findShop(db, shopId)).utc_offset_minutes);
  // `set local` lasts to the end of the transaction: a caller's transaction gets its setting back.
  if (isPostgres(db) && db.isTransaction) {
    const { setting } = (
      await sql<{ setting: string }>`select current_setting('enable_nestloop') as setting`.execute(db)
    ).rows[0]!;
    statements.push(sql`select set_config('enable_nestloop', ${setting}, true)`.compile(db));
  }
  await heavyWrite(db, statements);
}

import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { findShop, holdShopKeys, shopClockColumns } from '../shops/index.js';
import { clockOf, type ShopClock } from './local-days.js';
import * as repo from './repository.js';
import { BLOCK, type ClockSpec, LEVELS, type RollupRow, type RollupState, type RollupTable } from './rollup-rows.js';

type Conn = Kysely<Database>;

/**
 * Dashboard rollups, kept in the same transaction as every write that changes them (through the
 * domain events, subscribers.ts), so dashboards and the invoice list's totalCount sum
 * a few dozen rows instead of reading every invoice.
 *
 * A row holds the deltas of one bucket of shop-local days: a day or a block of 8, 64, 512 or
 * 4,096 days (levels 0…4); a write adds to its own day's bucket at each level and touches nothing
 * else. A range of days is summed from the whole blocks it covers and its ragged ends
 * (`bucketRanges`): a year is at most ~30 buckets per key, typically 20, where days alone would
 * be 365 (36,500 product rows for a shop selling 100 products a day).
 *
 * What a source row (an invoice with its parts, a customer, a feedback, a replacement, a refund) adds is
 * `contributions` of its current state; a change adds after − before. A rebuild folds the same
 * contributions of every source row, so rollups kept by the writes and rebuilt ones agree by
 * construction (the tests check it).
 *
 * A rebuild (a timezone change, `shopd rollups rebuild`) never stalls the write connection: it
 * fills the shop's next generation in short transactions of `batchSize` invoices each, in order
 * of creation, under the shop's rollup lock (the `rollup_state` row), then switches to it and
 * clears the old rows, also in batches. Meanwhile writes keep the live generation and, for source
 * rows created before the rebuild's cursor (already folded), the next one too: a write is never
 * lost nor counted twice, whichever of the two comes first.
 */

export type { RollupState } from './rollup-rows.js';

interface InvoiceSource {
  kind: 'invoice';
  createdAt: number;
  status: string;
  gateway: string;
  total: number;
  completedAt: number | null;
  repeatPurchase: boolean;
  /** The parts (only a completed invoice's count). */
  parts: { id: number; productId: number; quantity: number; total: number }[];
}
interface CustomerSource {
  kind: 'customer';
  createdAt: number;
}
interface FeedbackSource {
  kind: 'feedback';
  createdAt: number;
  rating: number;
}
interface ReplacementSource {
  kind: 'replacement';
  createdAt: number;
  quantity: number;
}
interface RefundSource {
  kind: 'refund';
  createdAt: number;
  amount: number;
}
/** A row the rollups are built from, as it stands. */
export type RollupSource = InvoiceSource | CustomerSource | FeedbackSource | ReplacementSource | RefundSource;
/** A source row appearing (before null), changing, or no longer counting (after null). */
export interface RollupChange {
  before: RollupSource | null;
  after: RollupSource | null;
}

interface DayRow {
  table: RollupTable;
  day: number;
  keys: Record<string, string | number>;
  sums: Record<string, number>;
  maxima?: Record<string, number>;
}

/** What one source row adds, per table and local day, on `clock`. */
function contributions(source: RollupSource, clock: ShopClock): DayRow[] {
  const day = clock.dayOf(source.createdAt);
  const totals = (at: number, sums: Record<string, number>): DayRow => ({
    table: 'rollup_totals',
    day: at,
    keys: {},
    sums,
  });
  switch (source.kind) {
    case 'customer':
      return [totals(day, { new_customers: 1 })];
    case 'feedback':
      return [totals(day, { feedbacks: 1, rating_sum: source.rating })];
    case 'replacement':
      return [totals(day, { replacements: 1, replaced_units: source.quantity })];
    case 'refund':
      return [totals(day, { refunds: 1, refunded: source.amount })];
    case 'invoice': {
      const pending = source.status === 'pending' ? 1 : 0;
      const rows: DayRow[] = [
        totals(day, {
          created_orders: 1,
          created_pending: pending,
          created_completed: source.status === 'completed' ? 1 : 0,
        }),
        {
          table: 'rollup_invoice_counts',
          day,
          keys: { status: source.status, gateway: source.gateway },
          sums: { invoices: 1 },
        },
      ];
      if (source.status !== 'completed' || source.completedAt === null) return rows;
      const done = clock.dayOf(source.completedAt);
      rows.push(
        totals(done, {
          completed_orders: 1,
          revenue: source.total,
          units_sold: source.parts.reduce((sum, p) => sum + p.quantity, 0),
          repeat_orders: source.repeatPurchase ? 1 : 0,
        }),
        {
          table: 'rollup_hours',
          day: done,
          keys: { hour: clock.hourOf(source.completedAt) },
          sums: { orders: 1 },
        },
        {
          table: 'rollup_gateways',
          day: done,
          keys: { gateway: source.gateway },
          sums: { revenue: source.total, orders: 1 },
        },
      );
      for (const part of source.parts) {
        rows.push({
          table: 'rollup_products',
          day: done,
          keys: { product_id: part.productId },
          sums: { revenue: part.total, quantity: part.quantity },
          maxima: { last_part_id: part.id },
        });
      }
      return rows;
    }
  }
}

/** The rows to add for `changes`: each day's deltas at every level, merged by bucket and key. */
function bucketRows(changes: RollupChange[], spec: ClockSpec): RollupRow[] {
  const clock = clockOf(spec);
  const merged = new Map<string, RollupRow>();
  const add = (row: DayRow, sign: 1 | -1) => {
    for (let level = 0, bucket = row.day; level < LEVELS; level++, bucket = Math.floor(bucket / BLOCK)) {
      const id = `${row.table}|${level}|${bucket}|${JSON.stringify(row.keys)}`;
      let into = merged.get(id);
      if (!into) {
        into = { table: row.table, level, bucket, keys: row.keys, sums: {}, maxima: {} };
        merged.set(id, into);
      }
      for (const [c, v] of Object.entries(row.sums)) into.sums[c] = (into.sums[c] ?? 0) + sign * v;
      // A maximum only grows: what a change takes away keeps it.
      if (sign === 1)
        for (const [c, v] of Object.entries(row.maxima ?? {})) into.maxima[c] = Math.max(into.maxima[c] ?? 0, v);
    }
  };
  for (const change of changes) {
    if (change.before) for (const row of contributions(change.before, clock)) add(row, -1);
    if (change.after) for (const row of contributions(change.after, clock)) add(row, 1);
  }
  return [...merged.values()].filter(
    (r) => Object.values(r.sums).some((v) => v !== 0) || Object.values(r.maxima).some((v) => v !== 0),
  );
}

const createdAtOf = (change: RollupChange) => (change.after ?? change.before)!.createdAt;

/**
 * Takes the shop's rollup lock for the rest of the transaction and answers the rollups' state,
 * created on first use on the shop's clock.
 */
async function lockRollupState(db: Conn, shopId: number): Promise<RollupState> {
  // The shop row first, then the rollup state: every writer takes them in that order. A write of
  // the rollup state after its upsert checks the row's foreign key again (PostgreSQL does for a
  // row its own transaction wrote), which takes a key-share lock on the shop; asked for then,
  // behind a queued write of the shop row that conflicts with it, while this transaction holds
  // the rollup state that a customer's write (which holds a key share of the shop) waits for, the
  // three waited for each other in a cycle (seen as a deadlock between a timezone change, its
  // rebuild and feedbacks, when owners locked the shop row `FOR UPDATE`). Owners' shop lock is an
  // advisory lock now (shops/repository.ts), but a change of the row's keys (subdomain, custom
  // domain) still conflicts with a key share. Held from the start (`holdShopKeys`: the shops
  // module's `FOR KEY SHARE` of the row on PostgreSQL, nothing on SQLite), the later check waits
  // for nothing. This is a row lock, not the shop's advisory lock: a rollup rebuild takes it alone
  // and must not wait for owners' catalog writes.
  await holdShopKeys(db, shopId);
  return repo.lockRollupState(db, shopId, shopClockColumns(db, shopId));
}

/**
 * Adds `changes` to the shop's rollups. Takes the shop's rollup lock, so it is the last step of
 * its transaction (see the lock order in docs/internals.md).
 */
export async function recordRollupChanges(db: Conn, shopId: number, changes: RollupChange[]): Promise<void> {
  const state = await lockRollupState(db, shopId);
  await repo.addRollupRows(db, shopId, state.generation, bucketRows(changes, state.clock));
  if (state.rebuildClock === null || state.rebuildCursor === null) return;
  const cursor = state.rebuildCursor;
  const folded = changes.filter((c) => createdAtOf(c) < cursor);
  if (folded.length > 0)
    await repo.addRollupRows(db, shopId, state.generation + 1, bucketRows(folded, state.rebuildClock));
}

/**
 * Starts a rebuild of the shop's rollups on `clock` (in the caller's transaction): the next
 * generation is cleared, then filled by `rebuildStep`. Nothing to do when the rollups are already
 * on that clock and no rebuild runs, unless `force` (`shopd rollups rebuild`).
 */
export async function startRollupRebuild(db: Conn, shopId: number, clock: ClockSpec, force = false): Promise<boolean> {
  const state = await lockRollupState(db, shopId);
  const same =
    state.clock.timezone === clock.timezone &&
    (clock.timezone !== null || state.clock.offsetMinutes === clock.offsetMinutes);
  if (!force && state.rebuildClock === null && same) return false;
  await repo.setRebuild(db, shopId, { clock, cursor: null });
  return true;
}

/** How many invoices (or stale rollup rows) one rebuild transaction handles by default. */
export const REBUILD_BATCH = 250;

/**
 * One short transaction of a shop's rebuild. False once there is nothing left to do: no rebuild
 * running and no rows of an old generation.
 */
export async function rebuildStep(db: Conn, shopId: number, batchSize = REBUILD_BATCH): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const state = await lockRollupState(trx, shopId);
    if (state.rebuildClock === null || state.rebuildCursor === null) {
      // Clearing: rows of any generation but the live one (a previous one, or a partial next one).
      const more = await repo.deleteStaleRows(trx, shopId, state.generation, batchSize);
      if (!more && state.rebuildClock !== null)
        await repo.setRebuild(trx, shopId, { clock: state.rebuildClock, cursor: 0 });
      return more || state.rebuildClock !== null;
    }
    const from = state.rebuildCursor;
    const to = await repo.sourceWindowEnd(trx, shopId, from, batchSize);
    const sources = await repo.sourcesCreatedIn(trx, shopId, from, to);
    await repo.addRollupRows(
      trx,
      shopId,
      state.generation + 1,
      bucketRows(
        sources.map((after) => ({ before: null, after })),
        state.rebuildClock,
      ),
    );
    if (to === null) await repo.switchGeneration(trx, shopId, state.generation + 1, state.rebuildClock);
    else await repo.setRebuild(trx, shopId, { clock: state.rebuildClock, cursor: to });
    return true;
  });
}

/**
 * Runs a shop's rebuild to its end, yielding to other work between its transactions. `paced`
 * (the background rebuild of a timezone change) also rests after each transaction for as long as
 * it took, so that the rebuild takes at most half of the event loop from the other shops' requests
 * (bench T9); `shopd rollups rebuild` runs unpaced.
 */
export async function runRollupRebuild(
  db: Conn,
  shopId: number,
  options: { batchSize?: number; stopped?: () => boolean; paced?: boolean } = {},
): Promise<void> {
  while (!options.stopped?.()) {
    const started = performance.now();
    if (!(await rebuildStep(db, shopId, options.batchSize))) return;
    if (options.paced) await sleep(performance.now() - started);
    else await nextTurn();
  }
}

/**
 * Rebuilds a shop's rollups from its raw rows in its current timezone, to the end. The rows are
 * read as they stand, the invoices' repeat-purchase flags included: rows written past the
 * completions (an import, the seeders) have them derived first by the orders module, which owns
 * them (its `deriveRepeatPurchases`). Used by `shopd rollups rebuild`, the seeders and the tests
 * that compare kept rollups with rebuilt ones.
 */
export async function rebuildRollups(db: Conn, shopId: number, batchSize = REBUILD_BATCH): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const shop = await findShop(trx, shopId);
    await startRollupRebuild(
      trx,
      shopId,
      { offsetMinutes: Number(shop.utc_offset_minutes), timezone: shop.timezone },
      true,
    );
  });
  await runRollupRebuild(db, shopId, { batchSize });
}

/** Background rebuilds of this process, per database: at most one loop per shop. */
const running = new WeakMap<Conn, { stopped: boolean; shops: Map<number, Promise<void>> }>();

/** Runs the shop's rebuild in the background; failures go to `onError` (a later start resumes it). */
export function rebuildInBackground(db: Conn, shopId: number, onError: (err: unknown) => void): void {
  let registry = running.get(db);
  if (!registry) {
    registry = { stopped: false, shops: new Map() };
    running.set(db, registry);
  }
  const { shops } = registry;
  const self = registry;
  if (self.stopped || shops.has(shopId)) return;
  const run = runRollupRebuild(db, shopId, { stopped: () => self.stopped, paced: true })
    .catch(onError)
    .finally(() => shops.delete(shopId));
  shops.set(shopId, run);
}

/** Resumes the rebuilds a stopped process left unfinished. */
export async function resumeRollupRebuilds(db: Conn, onError: (err: unknown) => void): Promise<void> {
  for (const shopId of await repo.shopsRebuilding(db)) rebuildInBackground(db, shopId, onError);
}

/** Stops this process's background rebuilds after their current transaction (the server is closing). */
export async function stopRollupRebuilds(db: Conn): Promise<void> {
  const registry = running.get(db);
  if (!registry) return;
  registry.stopped = true;
  await Promise.all(registry.shops.values());
}

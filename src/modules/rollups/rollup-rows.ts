/** The shapes shared by the rollups' logic (rollups.ts) and their SQL (repository.ts). */

/**
 * Levels of buckets: a day, BLOCK days, BLOCK² days … BLOCK⁴ days (4,096: eleven years). Blocks
 * of 8 leave ragged ends of at most 7 buckets per level; with 32 the ends of a nine-month range
 * were most of its rows (migration 0025 says what that cost).
 */
export const LEVELS = 5;
export const BLOCK = 8;

/** The measures of `rollup_totals`. */
export const TOTAL_COLUMNS = [
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
  'refunds',
  'refunded',
] as const;
export type TotalsColumn = (typeof TOTAL_COLUMNS)[number];
export type DayTotals = Record<TotalsColumn, number>;

/** Every rollup table: key columns, summed measures and maxima. */
export const ROLLUP_TABLES = {
  rollup_totals: { keys: [], sums: TOTAL_COLUMNS, maxima: [] },
  rollup_products: { keys: ['product_id'], sums: ['revenue', 'quantity'], maxima: ['last_part_id'] },
  rollup_hours: { keys: ['hour'], sums: ['orders'], maxima: [] },
  rollup_gateways: { keys: ['gateway'], sums: ['revenue', 'orders'], maxima: [] },
  rollup_invoice_counts: { keys: ['status', 'gateway'], sums: ['invoices'], maxima: [] },
} as const satisfies Record<string, { keys: readonly string[]; sums: readonly string[]; maxima: readonly string[] }>;
export type RollupTable = keyof typeof ROLLUP_TABLES;

/** Deltas to add to one bucket row. */
export interface RollupRow {
  table: RollupTable;
  level: number;
  bucket: number;
  keys: Record<string, string | number>;
  sums: Record<string, number>;
  maxima: Record<string, number>;
}

/** The clock rollups count local days on: an IANA time zone, else a fixed UTC offset (shared/shop-clock.ts). */
export interface ClockSpec {
  offsetMinutes: number;
  timezone: string | null;
}

export interface RollupState {
  generation: number;
  /** The clock of the live generation's days. */
  clock: ClockSpec;
  /** While a rebuild runs: the clock generation + 1 is being built on; null otherwise. */
  rebuildClock: ClockSpec | null;
  rebuildCursor: number | null;
}

/** Bucket ranges at one level, inclusive. */
export interface BucketRange {
  level: number;
  lo: number;
  hi: number;
}

/** The last day an open-ended range reaches (year 29349): far beyond any row. */
export const LAST_DAY = 10_000_000;

/**
 * The buckets whose sum is days first…last: the whole blocks of the coarsest level inside the
 * range, then at each finer level the ragged ends left over. At most BLOCK − 1 buckets per end
 * and level, plus the coarsest level's run.
 */
export function bucketRanges(first: number, last: number): BucketRange[] {
  const ranges: BucketRange[] = [];
  let a = first;
  let b = last;
  for (let level = 0; level < LEVELS && a <= b; level++) {
    const lo = Math.ceil(a / BLOCK);
    const hi = Math.floor((b + 1) / BLOCK) - 1;
    if (level === LEVELS - 1 || lo > hi) {
      ranges.push({ level, lo: a, hi: b });
      break;
    }
    if (a < lo * BLOCK) ranges.push({ level, lo: a, hi: lo * BLOCK - 1 });
    if ((hi + 1) * BLOCK <= b) ranges.push({ level, lo: (hi + 1) * BLOCK, hi: b });
    a = lo;
    b = hi;
  }
  return ranges;
}

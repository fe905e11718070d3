import { DAY_MS, HOUR_MS, type ShopClock, shopClock } from '../../shared/shop-clock.js';
import type { ClockSpec } from './rollup-rows.js';

/**
 * Shop-local days: days since 1970-01-01 on the shop's clock (its time zone, or its fixed UTC
 * offset; shared/shop-clock.ts). Rollups are kept per local day, so a range of epoch milliseconds
 * is read as the whole local days it covers (rollups) plus at most two partial days at its ends
 * (raw rows).
 */
export { DAY_MS, HOUR_MS, type ShopClock };

/** The clock of rollups kept in `spec`. */
export const clockOf = (spec: ClockSpec): ShopClock =>
  shopClock({ timezone: spec.timezone, utc_offset_minutes: spec.offsetMinutes });

/** Whole local days first…last, inclusive; a null bound is open (no fromDate, no toDate). */
export interface DaySpan {
  first: number | null;
  last: number | null;
}

export interface LocalDaySplit {
  /** The whole local days of the range; absent when it covers none. */
  whole?: DaySpan;
  /** The parts of the range that cover a local day only partly: at most two, each within one day. */
  edges: { from: number; to: number }[];
}

/** Splits inclusive epoch-millisecond bounds (either may be open) at the shop's local midnights. */
export function splitAtLocalMidnights(
  from: number | undefined,
  to: number | undefined,
  clock: ShopClock,
): LocalDaySplit {
  let first: number | null = null;
  let last: number | null = null;
  let head: { from: number; to: number } | undefined;
  let tail: { from: number; to: number } | undefined;
  if (from !== undefined) {
    const day = clock.dayOf(from);
    first = from === clock.dayStart(day) ? day : day + 1;
    if (first !== day) head = { from, to: clock.dayStart(day + 1) - 1 };
  }
  if (to !== undefined) {
    const day = clock.dayOf(to);
    last = to === clock.dayStart(day + 1) - 1 ? day : day - 1;
    if (last !== day) tail = { from: clock.dayStart(day), to };
  }
  if (head && to !== undefined) head.to = Math.min(head.to, to);
  if (tail && from !== undefined) tail.from = Math.max(tail.from, from);
  const edges = head && tail && head.from === tail.from ? [head] : [head, tail].filter((e) => e !== undefined);
  const empty = first !== null && last !== null && first > last;
  return empty ? { edges } : { whole: { first, last }, edges };
}

/**
 * A range within one local day cut where the clock's offset changes (daylight saving: at most
 * once a day), each part with its offset in milliseconds, for a statement that counts local hours
 * with one offset.
 */
export function spansOfOneOffset(
  range: { from: number; to: number },
  clock: ShopClock,
): { from: number; to: number; offsetMs: number }[] {
  const start = clock.offsetAt(range.from);
  if (clock.offsetAt(range.to) === start) return [{ ...range, offsetMs: start * 60_000 }];
  // The first millisecond on the other offset: offsets change on whole minutes.
  let lo = range.from;
  let hi = range.to;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (clock.offsetAt(mid) === start) lo = mid;
    else hi = mid;
  }
  return [
    { from: range.from, to: hi - 1, offsetMs: start * 60_000 },
    { from: hi, to: range.to, offsetMs: clock.offsetAt(hi) * 60_000 },
  ];
}

/**
 * Shop-local days: days since 1970-01-01 in the shop's UTC offset. Rollups are kept per local
 * day, so a range of epoch milliseconds is read as the whole local days it covers (rollups) plus
 * at most two partial days at its ends (raw rows).
 */
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export const localDayOf = (ms: number, offsetMs: number): number => Math.floor((ms + offsetMs) / DAY_MS);
export const localHourOf = (ms: number, offsetMs: number): number => Math.floor((ms + offsetMs) / HOUR_MS) % 24;
/** The first millisecond of a local day. */
export const dayStart = (day: number, offsetMs: number): number => day * DAY_MS - offsetMs;

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
  offsetMs: number,
): LocalDaySplit {
  let first: number | null = null;
  let last: number | null = null;
  let head: { from: number; to: number } | undefined;
  let tail: { from: number; to: number } | undefined;
  if (from !== undefined) {
    const day = localDayOf(from, offsetMs);
    first = from === dayStart(day, offsetMs) ? day : day + 1;
    if (first !== day) head = { from, to: dayStart(day + 1, offsetMs) - 1 };
  }
  if (to !== undefined) {
    const day = localDayOf(to, offsetMs);
    last = to === dayStart(day + 1, offsetMs) - 1 ? day : day - 1;
    if (last !== day) tail = { from: dayStart(day, offsetMs), to };
  }
  if (head && to !== undefined) head.to = Math.min(head.to, to);
  if (tail && from !== undefined) tail.from = Math.max(tail.from, from);
  const edges = head && tail && head.from === tail.from ? [head] : [head, tail].filter((e) => e !== undefined);
  const empty = first !== null && last !== null && first > last;
  return empty ? { edges } : { whole: { first, last }, edges };
}

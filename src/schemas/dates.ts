import { Type } from '@sinclair/typebox';
import { ValidationError } from '../http/errors.js';
import { DAY_MS, fixedClock, type ShopClock } from '../shared/shop-clock.js';
import { atLeast } from './rules.js';

/**
 * Dates and date-times in requests (contract section 1, "Time"). The schema's pattern is the
 * whole rule: only real calendar days (2026-02-29 is refused, 2028-02-29 is not), hours 00–23,
 * minutes and seconds 00–59, offsets up to ±23:59. The parser below reads exactly what the
 * pattern lets through, so a value the document accepts is never refused afterwards.
 */
const MONTH_DAY =
  '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))';
/** Gregorian leap years: divisible by 4, and by 400 when they end a century. */
const LEAP_YEAR = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[048]|[2468][048]|[13579][26])00)';
const DATE = `(?:\\d{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,3})?)?';
const OFFSET = '(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';

const DATE_FILTER_PATTERN = `^${DATE}(?:T${TIME}${OFFSET}?)?$`;
const INSTANT_PATTERN = `^${DATE}T${TIME}${OFFSET}$`;
const PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|([+-])(\d{2}):(\d{2}))?)?$/;

export const DateFilter = Type.String({
  pattern: DATE_FILTER_PATTERN,
  description:
    "A real date, YYYY-MM-DD (as a start: the first millisecond of that day in the shop's timezone; as an end: its last), " +
    "or a date-time YYYY-MM-DDThh:mm[:ss[.sss]] with an optional offset (Z or ±hh:mm; without one: in the shop's timezone).",
  errorMessage: { pattern: 'must be a real date (YYYY-MM-DD) or date-time (YYYY-MM-DDThh:mm[:ss[.sss]][Z|±hh:mm])' },
});

/** A point in time with its offset, e.g. `2026-11-21T10:00:00Z`. */
export const Instant = (description: string) =>
  Type.String({
    pattern: INSTANT_PATTERN,
    description: `A date-time YYYY-MM-DDThh:mm[:ss[.sss]] with its offset (Z or ±hh:mm). ${description}`,
    errorMessage: { pattern: 'must be a date-time with an offset (YYYY-MM-DDThh:mm[:ss[.sss]]Z or ±hh:mm)' },
  });

/**
 * A UTC calendar time as epoch milliseconds. Unlike Date.UTC, years 0–99 are those years, not
 * 1900–1999.
 */
function utcMs(year: number, month: number, day: number, hours = 0, minutes = 0, seconds = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hours, minutes, seconds, ms);
  return date.getTime();
}

/**
 * One bound: a bare date is the first (or, for an end, the last) millisecond of that day on the
 * shop's clock (23 or 25 hours long on a day its time zone changes to or from daylight saving); a
 * date-time without an offset is on the shop's clock too (a time the clock skips is read as after
 * the jump, one it shows twice as the first; shared/shop-clock.ts).
 */
export function parseDateBound(value: string, field: string, clock: ShopClock, end: boolean): number {
  const m = PARTS.exec(value);
  if (!m || !new RegExp(DATE_FILTER_PATTERN).test(value))
    throw ValidationError.field(field, 'must be a real date (YYYY-MM-DD) or date-time');
  const [, y, mo, d, h, mi, s, frac, zone, sign, oh, om] = m;
  const wall = utcMs(
    Number(y),
    Number(mo),
    Number(d),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
    Number((frac ?? '').padEnd(3, '0')),
  );
  if (h === undefined) {
    const day = Math.floor(wall / DAY_MS);
    return end ? clock.dayStart(day + 1) - 1 : clock.dayStart(day);
  }
  if (zone === undefined) return clock.instantOf(wall);
  const offset = zone === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return wall - offset * 60_000;
}

const UTC = fixedClock(0);

/** An `Instant` as epoch milliseconds. */
export function parseInstant(value: string, field: string): number {
  if (!new RegExp(INSTANT_PATTERN).test(value))
    throw ValidationError.field(field, 'must be a date-time with an offset');
  return parseDateBound(value, field, UTC, false);
}

export const DateRangeQuery = {
  fromDate: Type.Optional({ ...DateFilter, description: `Start of the range, inclusive. ${DateFilter.description}` }),
  toDate: Type.Optional({
    ...DateFilter,
    description: `End of the range, inclusive; fromDate after it is a 400. ${DateFilter.description}`,
    ...atLeast('fromDate'),
  }),
};

/** Inclusive bounds in epoch milliseconds; either may be absent. */
export function parseDateRange(
  query: { fromDate?: string | undefined; toDate?: string | undefined },
  clock: ShopClock,
): { from: number | undefined; to: number | undefined } {
  const from = query.fromDate === undefined ? undefined : parseDateBound(query.fromDate, 'fromDate', clock, false);
  const to = query.toDate === undefined ? undefined : parseDateBound(query.toDate, 'toDate', clock, true);
  if (from !== undefined && to !== undefined && from > to)
    throw ValidationError.field('fromDate', 'must not be after toDate');
  return { from, to };
}

import { Type } from '@sinclair/typebox';
import { ValidationError } from '../http/errors.js';

/**
 * Date filters (contract section 1, "Time"): a date (`2026-11-21`) or a date-time. A bare date
 * means the whole day in the shop's timezone: as `fromDate` its first millisecond, as `toDate`
 * its last. `fromDate` after `toDate` is a 400.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export const DateFilter = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2})?)?$',
  description: "A date (the whole day in the shop's timezone) or an ISO 8601 date-time (without an offset: in the shop's timezone).",
});

export const DateRangeQuery = {
  fromDate: Type.Optional(DateFilter),
  toDate: Type.Optional(DateFilter),
};

/** One bound: a bare date is the first (or, for an end, the last) millisecond of that day in the shop's timezone. */
export function parseDateBound(value: string, field: string, offsetMinutes: number, end: boolean): number {
  const date = DATE.exec(value);
  let ms: number;
  if (date) {
    const [, y, m, d] = date.map(Number) as [number, number, number, number];
    ms = Date.UTC(y, m - 1, d) - offsetMinutes * 60_000;
    const check = new Date(Date.UTC(y, m - 1, d));
    if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) throw ValidationError.field(field, 'is not a real date');
    if (end) ms += 86_400_000 - 1;
  } else if (/(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    ms = Date.parse(value);
  } else {
    ms = Date.parse(`${value}Z`) - offsetMinutes * 60_000;
  }
  if (!Number.isFinite(ms)) throw ValidationError.field(field, 'is not a valid date');
  return ms;
}

/** Inclusive bounds in epoch milliseconds; either may be absent. */
export function parseDateRange(
  query: { fromDate?: string | undefined; toDate?: string | undefined },
  offsetMinutes: number,
): { from: number | undefined; to: number | undefined } {
  const from = query.fromDate === undefined ? undefined : parseDateBound(query.fromDate, 'fromDate', offsetMinutes, false);
  const to = query.toDate === undefined ? undefined : parseDateBound(query.toDate, 'toDate', offsetMinutes, true);
  if (from !== undefined && to !== undefined && from > to) throw ValidationError.field('fromDate', 'must not be after toDate');
  return { from, to };
}

import { strings } from '../../strings';
import { type ShopClock, shopDates } from '../../ui/format';

/**
 * The dashboard's date range, kept in the URL: `?range=7d` for a preset, `?from=…&to=…` (whole
 * days, YYYY-MM-DD) for a custom one; nothing means the last 30 days. Days are the shop's: a
 * preset ends on today on the shop's clock (its time zone, daylight saving included, or its fixed
 * UTC offset), not the browser's, as the API counts them.
 */
export type Preset = 'today' | '7d' | '30d' | '90d';

export const presets: readonly { id: Preset; label: string; days: number }[] = [
  { id: 'today', label: strings.dashboard.today, days: 1 },
  { id: '7d', label: strings.dashboard.n7Days, days: 7 },
  { id: '30d', label: strings.dashboard.n30Days, days: 30 },
  { id: '90d', label: strings.dashboard.n90Days, days: 90 },
];

export const DEFAULT_PRESET: Preset = '30d';
/** The API refuses longer ranges. */
export const MAX_DAYS = 366;

export interface DashboardRange {
  /** The preset, or null for a custom range. */
  preset: Preset | null;
  fromDate: string;
  toDate: string;
}

const DAY_MS = 86_400_000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Today on the shop's clock, as YYYY-MM-DD: the day in its IANA time zone (daylight saving
 * included), else at its fixed offset east of UTC.
 */
export function todayAt(clock: ShopClock, now = Date.now()): string {
  return shopDates(clock).wallInput(now).slice(0, 10);
}

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isDay(value: string): boolean {
  if (!ISO_DAY.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** How many days a range covers, both ends included. */
export function daysIn(fromDate: string, toDate: string): number {
  return Math.round((Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / DAY_MS) + 1;
}

/** The problem with a custom range, or null when the API will take it. */
export function rangeProblem(fromDate: string, toDate: string): { field: 'from' | 'to'; message: string } | null {
  if (!isDay(fromDate)) return { field: 'from', message: strings.dashboard.pickAStartDate };
  if (!isDay(toDate)) return { field: 'to', message: strings.dashboard.pickAnEndDate };
  if (fromDate > toDate) return { field: 'to', message: strings.dashboard.theEndIsBefore };
  if (daysIn(fromDate, toDate) > MAX_DAYS) return { field: 'to', message: strings.dashboard.aRangeCoversAt(MAX_DAYS) };
  return null;
}

/**
 * The range a URL asks for. A custom range with one end missing gets the API's defaults (the end
 * today, the start 29 days before the end); dates the API would refuse are passed on as they are,
 * so its answer says what is wrong with them.
 */
export function readRange(params: URLSearchParams, clock: ShopClock, now = Date.now()): DashboardRange {
  const today = todayAt(clock, now);
  const from = params.get('from');
  const to = params.get('to');
  if (from || to) {
    const toDate = to || today;
    return { preset: null, fromDate: from || (isDay(toDate) ? addDays(toDate, -29) : toDate), toDate };
  }
  const preset = presets.find((p) => p.id === params.get('range')) ?? presets.find((p) => p.id === DEFAULT_PRESET)!;
  return { preset: preset.id, fromDate: addDays(today, -(preset.days - 1)), toDate: today };
}

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const shortDayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** A YYYY-MM-DD day as this browser writes dates (the day itself, whatever the browser's timezone). */
export function dayLabel(day: string, short = false): string {
  const ms = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(ms)) return day;
  return (short ? shortDayFormat : dayFormat).format(ms);
}

export function rangeLabel(range: DashboardRange): string {
  return range.fromDate === range.toDate
    ? dayLabel(range.fromDate)
    : `${dayLabel(range.fromDate)} – ${dayLabel(range.toDate)}`;
}

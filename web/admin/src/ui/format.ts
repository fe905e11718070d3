import { DAY_MS, type ShopClock as DayClock, fixedClock, zoneClock } from '../../../../src/shared/shop-clock.js';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** An API amount (a decimal in the major unit) with its currency, as this browser writes money. */
export function money(amount: number | string | null | undefined, currency: string): string {
  if (amount === null || amount === undefined) return '—';
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    moneyFormats.set(currency, format);
  }
  return format.format(Number(amount));
}

/**
 * The clock a shop counts its days and hours on, as the shop view has it: an IANA time zone
 * (`Europe/Berlin`, daylight saving included), else a fixed offset in minutes east of UTC.
 */
export interface ShopClock {
  timezone: string | null;
  utcTimezoneOffset: number;
}

/** `UTC+05:30` for 330 minutes east of UTC, `UTC−03:00` for 180 west of it. */
export function offsetLabel(minutes: number): string {
  const sign = minutes < 0 ? '−' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

type DateStyle = 'dateTime' | 'date' | 'time' | 'wall';
const dateStyles: Record<DateStyle, Intl.DateTimeFormatOptions> = {
  dateTime: { dateStyle: 'medium', timeStyle: 'short' },
  date: { dateStyle: 'medium' },
  time: { timeStyle: 'short' },
  // The parts of a `datetime-local` value (read with formatToParts, whatever the locale's order).
  wall: {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  },
};
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A remembered formatter of this browser's locale (`wall`: a fixed one) for a style in a zone. */
function dateFormat(style: DateStyle, timeZone: string): Intl.DateTimeFormat {
  const key = `${style} ${timeZone}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(style === 'wall' ? 'en-US' : undefined, { ...dateStyles[style], timeZone });
    dateFormats.set(key, format);
  }
  return format;
}

/** Whether this browser knows a time zone by that name. */
function knowsTimeZone(timeZone: string): boolean {
  try {
    dateFormat('date', timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Dates and times written on a shop's clock (ShopDates below). */
export interface ShopDates {
  /** `Mar 5, 2026, 3:04 PM` on the shop's clock; `—` for none. */
  dateTime(iso: string | number | null | undefined): string;
  /** `Mar 5, 2026`, the shop's day; `—` for none. */
  date(iso: string | number | null | undefined): string;
  /** `3:04 PM` on the shop's clock. */
  time(iso: string | number | null | undefined): string;
  /** An instant as a `datetime-local` value (`2026-03-05T15:04`) on the shop's clock; '' for none. */
  wallInput(iso: string | number | null | undefined): string;
  /** The shop's day of an instant, `YYYY-MM-DD` (a date input's value); '' for none. */
  day(iso: string | number | null | undefined): string;
  /**
   * The last millisecond of a shop's day given as `YYYY-MM-DD` (a licence ending "at the end of
   * this day"), as an ISO instant the API takes; the text as given when it is no such day.
   */
  endOfDay(day: string): string;
  /** Which clock, as a hint names it: `Europe/Berlin` or `UTC+01:00`; '' while it is unknown. */
  zone: string;
  /** False while the shop is not loaded yet: every date then reads `…`. */
  known: boolean;
}

const NONE = '—';
const PENDING = '…';

function instantOf(iso: string | number): number {
  return typeof iso === 'number' ? iso : Date.parse(iso);
}

const isNone = (iso: string | number | null | undefined): iso is null | undefined | '' =>
  iso === null || iso === undefined || iso === '';

/** A date, time or wall time in a zone (`shift`: minutes added first, for a fixed offset read in UTC). */
function writer(style: DateStyle, timeZone: string, shift: number) {
  const format = dateFormat(style, timeZone);
  return (iso: string | number | null | undefined): string => {
    if (isNone(iso)) return style === 'wall' ? '' : NONE;
    const ms = instantOf(iso);
    if (Number.isNaN(ms)) return String(iso);
    const at = ms + shift * 60_000;
    if (style !== 'wall') return format.format(at);
    const p: Record<string, string> = {};
    for (const part of format.formatToParts(at)) p[part.type] = part.value;
    return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
  };
}

/**
 * The end of a day `YYYY-MM-DD` on a clock (the server's own, src/shared/shop-clock.ts), as an ISO
 * instant; the text itself when it is no day.
 */
function endOfDayOn(day: string, clock: DayClock): string {
  const start = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(start)) return day;
  return new Date(clock.dayStart(start / DAY_MS + 1) - 1).toISOString();
}

const pending: ShopDates = {
  dateTime: (iso) => (isNone(iso) ? NONE : PENDING),
  date: (iso) => (isNone(iso) ? NONE : PENDING),
  time: (iso) => (isNone(iso) ? NONE : PENDING),
  wallInput: () => '',
  day: () => '',
  endOfDay: (day) => day,
  zone: '',
  known: false,
};
const shopDatesByClock = new Map<string, ShopDates>();

/**
 * How a shop writes dates: in its IANA time zone when it has one (and this browser knows it), else
 * at its fixed offset (the instant moved by the offset and written as UTC). Not the browser's time
 * zone: an owner abroad sees the shop's days, as its dashboards, filters, storefront and mails count
 * them. One object (and its formatters) per clock, remembered.
 */
export function shopDates(clock: ShopClock | null | undefined): ShopDates {
  if (!clock) return pending;
  const zoned = clock.timezone !== null && knowsTimeZone(clock.timezone);
  const key = zoned ? `zone ${clock.timezone}` : `offset ${clock.utcTimezoneOffset}`;
  let dates = shopDatesByClock.get(key);
  if (!dates) {
    const timeZone = zoned ? (clock.timezone as string) : 'UTC';
    const shift = zoned ? 0 : clock.utcTimezoneOffset;
    const wall = writer('wall', timeZone, shift);
    const dayClock = zoned ? zoneClock(timeZone) : fixedClock(shift);
    dates = {
      dateTime: writer('dateTime', timeZone, shift),
      date: writer('date', timeZone, shift),
      time: writer('time', timeZone, shift),
      wallInput: wall,
      day: (iso) => wall(iso).slice(0, 10),
      endOfDay: (day) => endOfDayOn(day, dayClock),
      zone: zoned ? timeZone : offsetLabel(shift),
      known: true,
    };
    shopDatesByClock.set(key, dates);
  }
  return dates;
}

export function count(n: number): string {
  return n.toLocaleString();
}

const byteUnits = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** A size in bytes as a person reads it: `532 bytes`, `1.4 MB`, `2 GB` (powers of 1024). */
export function bytes(n: number): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${n.toLocaleString()} ${n === 1 ? 'byte' : 'bytes'}`;
  return `${value.toLocaleString(undefined, { maximumFractionDigits: value < 10 ? 1 : 0 })} ${byteUnits[unit]}`;
}

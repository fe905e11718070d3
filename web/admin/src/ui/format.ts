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

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function dateTime(iso: string | null | undefined): string {
  return iso ? dateTimeFormat.format(new Date(iso)) : '—';
}

export function date(iso: string | null | undefined): string {
  return iso ? dateFormat.format(new Date(iso)) : '—';
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

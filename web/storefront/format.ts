/** Display helpers shared by the pages. Amounts arrive as the API shows them (major units). */

const formats = new Map<string, Intl.NumberFormat>();

/** `12.5, 'USD'` → `$12.50`; an unknown code falls back to `12.50 XYZ`. */
export function money(amount: number, currency: string): string {
  let format = formats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en', { style: 'currency', currency });
    } catch {
      return `${amount.toFixed(2)} ${currency}`;
    }
    formats.set(currency, format);
  }
  return format.format(amount);
}

const SIZE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

/** `1536000` → `1.5 MB` (powers of 1,000, as file managers show them). */
export function fileSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < SIZE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return new Intl.NumberFormat('en', {
    style: 'unit',
    unit: SIZE_UNITS[unit],
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}

/** `2026-11-21T10:00:00.000Z` → `21 Nov 2026`. */
export function day(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** `★★★★☆` for 4, with the number for screen readers in the label. */
export function stars(rating: number): string {
  const whole = Math.max(0, Math.min(5, Math.round(rating)));
  return '★'.repeat(whole) + '☆'.repeat(5 - whole);
}

/** The gateways' names (one per method, shared with the admin and the mails). */
export { gatewayName } from '../../src/shared/gateway-names.js';

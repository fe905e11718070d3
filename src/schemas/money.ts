import { Type } from '@sinclair/typebox';
import { ValidationError } from '../http/errors.js';
import { OptionalNullable } from './common.js';
import { currencyDigits } from './currencies.js';
import { minorUnits, references } from './rules.js';

/**
 * Money on the wire is a decimal number in the major unit (9.99) paired with the shop's ISO 4217
 * currency; in the database it is an integer count of minor units (999). Conversions happen
 * only here, and amounts with more decimals than the currency has are refused, never rounded.
 */
export const MAX_AMOUNT_MAJOR = 1_000_000_000;

export const Amount = Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_AMOUNT_MAJOR,
  description: "Decimal amount in the major unit of the shop's currency, with at most its minor-unit digits.",
  ...minorUnits(),
});

/**
 * `value × 10^decimals` as an exact integer, or null when `value` has more than `decimals`
 * decimals. The decimals are those of the number as the client wrote it, read from its shortest
 * round-trip form: `String(0.29)` is "0.29" although 0.29 × 100 is 28.999999999999996 in binary,
 * and `String(0.00000001)` is "1e-8". Exact, with no tolerance: 9.999999999 has 9 decimals, not
 * "about 2". The callers' schemas bound the magnitude; a value beyond a safe integer is a bug.
 */
export function toScaledInteger(value: number, decimals: number): number | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!match) throw new RangeError(`not a finite number: ${value}`);
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  // value = digits × 10^-scale
  const digits = whole! + fraction;
  const scale = fraction.length - Number(exponent);
  if (scale > decimals) return null;
  const scaled = Number(`${sign}${digits}${'0'.repeat(decimals - scale)}`);
  if (!Number.isSafeInteger(scaled)) throw new RangeError(`${value} × 10^${decimals} is beyond a safe integer`);
  return scaled + 0; // + 0: never a -0
}

/** Major-unit decimal → integer minor units, or a 400 naming `field`. */
export function toMinorUnits(amount: number, currency: string, field: string): number {
  const digits = currencyDigits(currency);
  const minor = toScaledInteger(amount, digits);
  if (minor === null) throw ValidationError.field(field, `must have at most ${digits} decimals in ${currency}`);
  return minor;
}

/**
 * Integer minor units → major-unit number for JSON. One division is exact enough: 10^digits is
 * a double exactly, and IEEE division rounds the true quotient (999 / 100 is exactly 9.99) to
 * the nearest double — the same double that parsing "9.99" gives, for every integer below 2^53.
 * It costs a fraction of formatting and parsing a decimal string, on every price of a page.
 */
export function fromMinorUnits(minor: number, currency: string): number {
  return minor / 10 ** currencyDigits(currency) + 0; // + 0: never a -0
}

/**
 * Re-expresses an amount when a shop changes currency: the major-unit number stays (9.99 USD
 * becomes 9.99 EUR), rounded half up when the new currency has fewer digits (9.99 USD → 10 JPY),
 * and never below one minor unit so a price stays positive.
 */
export function rescaleMinorUnits(minor: number, fromCurrency: string, toCurrency: string): number {
  const shift = currencyDigits(toCurrency) - currencyDigits(fromCurrency);
  if (shift >= 0) return minor * 10 ** shift;
  return Math.max(1, Math.round(minor / 10 ** -shift));
}

export const PriceDetails = Type.Object({
  amount: Amount,
  currency: OptionalNullable(
    Type.String({
      pattern: '^[A-Z]{3}$',
      description: "The shop's currency (400 otherwise); null or omitted: the shop's currency.",
      ...references('currency'),
    }),
  ),
});

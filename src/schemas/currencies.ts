import { data as iso4217 } from 'currency-codes';

// Codes in ISO 4217 that are not money a shop can price in: precious metals, bond-market
// units, the SDR, the testing code and "no currency".
const notTender = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

/** Minor-unit digits by ISO 4217 code (USD 2, JPY 0, KWD 3, ...). */
const minorUnitDigits: ReadonlyMap<string, number> = new Map(
  iso4217.filter((c) => !notTender.has(c.code) && typeof c.digits === 'number').map((c) => [c.code, c.digits]),
);

export const currencyCodes: readonly string[] = [...minorUnitDigits.keys()].sort();

export function currencyDigits(code: string): number {
  const digits = minorUnitDigits.get(code);
  if (digits === undefined) throw new Error(`unknown currency ${code}`);
  return digits;
}

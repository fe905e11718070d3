import { fromMinorUnits, toMinorUnits } from '../../src/schemas/money.js';

/**
 * Display helpers shared by the pages that need no language: amounts, dates and sizes go through
 * the buyer's `Lang` (i18n.ts), which formats them in the buyer's locale.
 */

/** `★★★★☆` for 4, with the number for screen readers in the label. */
export function stars(rating: number): string {
  const whole = Math.max(0, Math.min(5, Math.round(rating)));
  return '★'.repeat(whole) + '☆'.repeat(5 - whole);
}

/**
 * Adds up prices as the services do, in integer minor units, and answers the sum in major units
 * as pages show them (`9.99 × 3` is 29.97, not 29.970000000000002): each term is a page's price
 * (major units, as the JSON views give it) times a quantity.
 */
export function sumPrices(terms: { price: number; quantity: number }[], currency: string): number {
  let minor = 0;
  for (const term of terms) minor += toMinorUnits(term.price, currency, 'price') * term.quantity;
  return fromMinorUnits(minor, currency);
}

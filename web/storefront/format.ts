/**
 * Display helpers shared by the pages that need no language: amounts, dates and sizes go through
 * the buyer's `Lang` (i18n.ts), which formats them in the buyer's locale.
 */

/** `★★★★☆` for 4, with the number for screen readers in the label. */
export function stars(rating: number): string {
  const whole = Math.max(0, Math.min(5, Math.round(rating)));
  return '★'.repeat(whole) + '☆'.repeat(5 - whole);
}

import Negotiator from 'negotiator';
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '../shared/locales.js';

/** The cookie the storefront's language switcher sets (`/language?to=de`): one choice per browser, for every shop of the host. */
export const LANGUAGE_COOKIE = 'shopd_lang';

/** The first of a browser's `Accept-Language` the catalogue has; null when none is (or no header came). */
export function acceptedLocale(acceptLanguage: string | undefined): Locale | null {
  const header = acceptLanguage?.trim();
  if (!header || header === '*') return null;
  const [best] = new Negotiator({ headers: { 'accept-language': header } }).languages([...LOCALES]);
  return isLocale(best) ? best : null;
}

/**
 * The language of a buyer's page or mail, first match wins: the language the buyer chose with
 * the switcher (a cookie), then the first of the browser's `Accept-Language` the catalogue has
 * (`de-AT` is German), then the shop's default language. `*`, an empty header or only languages
 * we do not have leave it to the shop.
 */
export function chooseLocale(input: {
  chosen?: string | undefined;
  acceptLanguage?: string | undefined;
  /** The shop's `language` as stored; one this version has no catalogue for counts as English. */
  shopDefault: string | null | undefined;
}): Locale {
  const shopDefault = isLocale(input.shopDefault) ? input.shopDefault : DEFAULT_LOCALE;
  if (isLocale(input.chosen)) return input.chosen;
  const header = input.acceptLanguage?.trim();
  if (header) {
    // The shop's own first, so a wildcard (`*`) or a tie picks it.
    const offered = [shopDefault, ...LOCALES.filter((l) => l !== shopDefault)];
    const [best] = new Negotiator({ headers: { 'accept-language': header } }).languages(offered);
    if (isLocale(best)) return best;
  }
  return shopDefault;
}

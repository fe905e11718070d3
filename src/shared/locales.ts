/**
 * The languages the storefront and the buyers' mails are written in (src/i18n/messages holds a
 * catalogue for each). Shared with the admin, which offers them as a shop's default language.
 */
export const LOCALES = ['en', 'de'] as const;
export type Locale = (typeof LOCALES)[number];

/** A shop's language when it has chosen none, and the storefront's when nothing else decides. */
export const DEFAULT_LOCALE: Locale = 'en';

/** Each language by its own name, as a language switcher lists it. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch' };

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

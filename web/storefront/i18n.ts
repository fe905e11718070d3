import type { FastifyRequest } from 'fastify';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { type Lang, langOf } from '../../src/i18n/lang.js';
import { chooseLocale, LANGUAGE_COOKIE } from '../../src/i18n/negotiate.js';
import { shopClock } from '../../src/shared/shop-clock.js';

export { LANGUAGE_COOKIE };

import { DEFAULT_LOCALE } from '../../src/shared/locales.js';

export { gatewayLabel } from '../../src/i18n/lang.js';
export type { Lang };

/**
 * The buyer's language while a page renders (render.ts provides it): every page and piece reads
 * its words, amounts and dates through `useLang()`.
 */
export const LangContext = createContext<Lang>(langOf(DEFAULT_LOCALE));

export const useLang = (): Lang => useContext(LangContext);

declare module 'fastify' {
  interface FastifyRequest {
    /** The buyer's language for this request (storefront routes): see `requestLang`. */
    lang: Lang | null;
  }
}

/**
 * A storefront request's language: the switcher's cookie, else `Accept-Language`, else the shop's
 * default language (English where there is no shop); dates on the shop's clock.
 */
export function requestLang(
  request: FastifyRequest,
  shop?: { language: string; utc_offset_minutes: number; timezone: string | null } | null,
): Lang {
  const locale = chooseLocale({
    chosen: request.cookies?.[LANGUAGE_COOKIE],
    acceptLanguage: request.headers['accept-language'],
    shopDefault: shop?.language,
  });
  return langOf(locale, shop ? shopClock(shop) : 0);
}

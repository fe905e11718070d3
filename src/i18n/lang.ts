import { createIntl, createIntlCache, type IntlShape } from '@formatjs/intl';
import { GATEWAY_NAMES } from '../shared/gateway-names.js';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../shared/locales.js';
import { fixedClock, type ShopClock, shopClock } from '../shared/shop-clock.js';
import { de } from './messages/de.js';
import { en, type MessageKey } from './messages/en.js';

export type { MessageKey };

/** The values a message is formatted with (`{count, plural, …}`, `{name}`). */
export type MessageValues = Record<string, string | number>;

const CATALOGUES: Record<Locale, Record<MessageKey, string>> = { en, de };

/**
 * A buyer's language, for a page or a mail: the catalogue's messages (ICU MessageFormat, through
 * @formatjs/intl), and numbers, amounts and dates through `Intl` in the same locale. Dates are
 * the shop's: each moment is shown on the shop's clock (its time zone, daylight saving included,
 * or its fixed UTC offset), with the offset of that moment named.
 */
export interface Lang {
  readonly locale: Locale;
  /** A message as text. */
  t(key: MessageKey, values?: MessageValues): string;
  /**
   * A message with markup: each `<tag>…</tag>` of the message is given to the function of that
   * name (a link, say), so the translation decides where it sits. The parts, in order.
   */
  rich<T>(key: MessageKey, values: Record<string, string | number | ((chunks: (string | T)[]) => T)>): (string | T)[];
  /** An amount in major units of `currency`: `$4.50`, `4,50 $`. One way, everywhere the buyer sees money. */
  money(amount: number, currency: string): string;
  number(value: number): string;
  /** The shop's calendar day of a moment: `21 Nov 2026`, `21. Nov. 2026`. */
  day(moment: string | number): string;
  /** Day and time on the shop's clock, with its offset: `21 Nov 2026, 14:05 UTC+01:00`. */
  dayTime(moment: string | number): string;
  /** `1.5 MB`, in powers of 1,000 as file managers show them. */
  fileSize(bytes: number): string;
  /** `a, b and c` / `a, b und c`. */
  list(items: string[]): string;
}

const cache = createIntlCache();
const intls = new Map<Locale, IntlShape<string>>();

function intlOf(locale: Locale): IntlShape<string> {
  let intl = intls.get(locale);
  if (!intl) {
    intl = createIntl(
      {
        locale,
        defaultLocale: 'en',
        messages: CATALOGUES[locale],
        // A message that cannot be formatted (a value missing) is a bug to see, not a page with a hole.
        onError: (error) => {
          throw error;
        },
      },
      cache,
    );
    intls.set(locale, intl);
  }
  return intl;
}

/** `UTC`, `UTC+01:00`, `UTC−03:30`: the name of a fixed offset. */
export function offsetName(minutes: number): string {
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `UTC${minutes < 0 ? '-' : '+'}${hh}:${mm}`;
}

/**
 * The language of a buyer's mail: the one they used when they placed the order or opened the
 * ticket (`recorded`), else the shop's default; on the shop's clock.
 */
export function buyerLang(
  recorded: string | null | undefined,
  shop: { language: string; utc_offset_minutes: number; timezone: string | null },
): Lang {
  const locale = isLocale(recorded) ? recorded : isLocale(shop.language) ? shop.language : DEFAULT_LOCALE;
  return langOf(locale, shopClock(shop));
}

const SIZE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
const langs = new Map<string, Lang>();

/**
 * The language `locale` on a shop's clock (a number: a fixed offset, minutes east of UTC); made
 * once per pair.
 */
export function langOf(locale: Locale, on: ShopClock | number = 0): Lang {
  const clock = typeof on === 'number' ? fixedClock(on) : on;
  const key = `${locale} ${clock.zone ?? clock.offsetAt(0)}`;
  let lang = langs.get(key);
  if (lang) return lang;
  const intl = intlOf(locale);
  const moneyFormats = new Map<string, Intl.NumberFormat | null>();
  const numbers = new Intl.NumberFormat(locale);
  // A moment on the shop's clock: moved by its offset then and shown as UTC (Node 20's Intl takes no
  // offset zones; one way for zones and fixed offsets alike, the offset named the same way).
  const ms = (moment: string | number) => (typeof moment === 'number' ? moment : Date.parse(moment));
  const local = (moment: string | number) => new Date(ms(moment) + clock.offsetAt(ms(moment)) * 60_000);
  // English dates read day-month-year (`21 Nov 2026`), unambiguous wherever the buyer lives.
  const dateLocale = locale === 'en' ? 'en-GB' : locale;
  const days = new Intl.DateTimeFormat(dateLocale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const dayTimes = new Intl.DateTimeFormat(dateLocale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'UTC',
  });
  const lists = new Intl.ListFormat(locale, { type: 'conjunction' });
  lang = {
    locale,
    t: (key, values) => intl.formatMessage({ id: key }, values),
    rich: <T>(key: MessageKey, values: Record<string, unknown>) => {
      const out = intl.formatMessage({ id: key }, values as never) as unknown;
      return (Array.isArray(out) ? out : [out]) as (string | T)[];
    },
    money(amount, currency) {
      let format = moneyFormats.get(currency);
      if (format === undefined) {
        try {
          format = new Intl.NumberFormat(locale, { style: 'currency', currency });
        } catch {
          format = null;
        }
        moneyFormats.set(currency, format);
      }
      return format ? format.format(amount) : `${numbers.format(amount)} ${currency}`;
    },
    number: (value) => numbers.format(value),
    day: (moment) => days.format(local(moment)),
    dayTime: (moment) => `${dayTimes.format(local(moment))} ${offsetName(clock.offsetAt(ms(moment)))}`,
    fileSize(bytes) {
      let value = bytes;
      let unit = 0;
      while (value >= 1000 && unit < SIZE_UNITS.length - 1) {
        value /= 1000;
        unit++;
      }
      return new Intl.NumberFormat(locale, {
        style: 'unit',
        unit: SIZE_UNITS[unit],
        unitDisplay: unit === 0 ? 'long' : 'short',
        maximumFractionDigits: unit === 0 ? 0 : 1,
      }).format(value);
    },
    list: (items) => lists.format(items),
  };
  langs.set(key, lang);
  return lang;
}

/** Every payment method has its name in the catalogue (`gateway.<id>`). */
type GatewayKey = `gateway.${keyof typeof GATEWAY_NAMES}`;
const gatewayKeys: Record<GatewayKey, MessageKey> = Object.fromEntries(
  Object.keys(GATEWAY_NAMES).map((id) => [`gateway.${id}`, `gateway.${id}`]),
) as Record<GatewayKey, GatewayKey>;

/** A payment method's name in the buyer's language; an id this version does not know is shown as it is. */
export function gatewayLabel(lang: Lang, gateway: string): string {
  const key = gatewayKeys[`gateway.${gateway}` as GatewayKey];
  return key ? lang.t(key) : gateway;
}

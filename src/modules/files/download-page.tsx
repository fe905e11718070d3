import { renderToString } from 'preact-render-to-string';
import type { Lang } from '../../i18n/lang.js';
import type { Refusal } from './downloads.service.js';

/**
 * The small page a browser gets instead of a refused download: what happened and what to do,
 * with a link to the shop (its pages have its support form) when the path names a shop. Self-contained (its
 * style inline, no script), so it needs nothing from the storefront.
 */
export const REFUSAL_PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const;

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;color:#222;background:#f6f6f6;margin:0}' +
  'main{max-width:32rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px}' +
  'h1{font-size:1.4rem;margin:.2rem 0 1rem}.status{color:#595959;margin:0}a{color:#0b5cad}';

export interface RefusalShop {
  name: string;
  /** The storefront's absolute base, without a trailing slash. */
  url: string;
  /** The shop's default language, as stored. */
  language: string;
}

/** The page in the buyer's language (`lang`: their browser's, else the shop's). */
export function refusalPage(refusal: Refusal, shop: RefusalShop | undefined, lang: Lang): string {
  const { t } = lang;
  const title = t(refusal.status === 403 ? 'download.title.invalid' : 'download.title.gone');
  return `<!doctype html>${renderToString(
    <html lang={lang.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{title}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>
          <p class="status">{refusal.status}</p>
          <h1>{t(`download.${refusal.reason}.message`)}</h1>
          <p>{t(`download.${refusal.reason}.advice`)}</p>
          {shop ? (
            <p>
              <a href={shop.url}>{t('download.goTo', { shop: shop.name })}</a>
            </p>
          ) : null}
        </main>
      </body>
    </html>,
  )}`;
}

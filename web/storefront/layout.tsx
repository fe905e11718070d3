import { type ComponentChildren, Fragment } from 'preact';
import { LOCALE_NAMES, LOCALES } from '../../src/shared/locales.js';
import { assetUrl } from './assets.js';
import { type Lang, useLang } from './i18n.js';
import { jsonLdText } from './seo.js';
import { absoluteUrl, canonicalUrl, href, type ShopDetails, type Site } from './site.js';
import { fillFor, readableOn } from './theme.js';

/**
 * The frame of every storefront page in the shop's design: colours as CSS variables, logo,
 * name, navigation, notices (popup, on hold), social links and terms in the footer. Everything
 * the owner typed is rendered as text; JSX escapes it.
 */
export interface LayoutProps {
  site: Site;
  details: ShopDetails;
  /** The page's own title; the shop's SEO title (or name) follows it. */
  title?: string;
  description?: string | null;
  /** An image for link previews, when the page has its own (a product's). */
  image?: string | null;
  /** Pages that belong to one buyer (invoice, ticket, account) are kept out of search engines. */
  noindex?: boolean;
  /** The page's path for search engines and shared links (`<link rel="canonical">`, `og:url`); pages meant to be found give it. */
  path?: `/${string}`;
  /** `og:type`: `website` unless the page is a product's. */
  ogType?: 'website' | 'product';
  /** schema.org structured data for the page (a product's offers and rating). */
  jsonLd?: object;
  /** Extra elements for `<head>` (a refresh while an invoice is pending, without script). */
  head?: ComponentChildren;
  children: ComponentChildren;
}

/** The platforms' own names; the generic kinds in the buyer's language. */
const SOCIAL_NAMES: Record<string, string> = {
  discord: 'Discord',
  telegram: 'Telegram',
  youtube: 'YouTube',
  twitter: 'X (Twitter)',
  instagram: 'Instagram',
  tiktok: 'TikTok',
};

function socialName(lang: Lang, platform: string): string {
  if (platform === 'website') return lang.t('layout.social.website');
  if (platform === 'email') return lang.t('layout.social.email');
  if (platform === 'other') return lang.t('layout.social.other');
  return SOCIAL_NAMES[platform] ?? platform;
}

/**
 * The language switcher: a link per language (plain links, no script), each to `/language`, which
 * remembers the choice and comes back to this page.
 */
function LanguageSwitcher({ site }: { site: Site }) {
  const lang = useLang();
  return (
    <nav class="languages" aria-label={lang.t('layout.language')}>
      {LOCALES.map((locale, i) => (
        <Fragment key={locale}>
          {i > 0 ? ' · ' : null}
          <a
            href={`${href(site, '/language')}?to=${locale}&next=${encodeURIComponent(site.here)}`}
            lang={locale}
            hreflang={locale}
            aria-current={locale === lang.locale ? 'true' : undefined}
            rel="nofollow"
          >
            {LOCALE_NAMES[locale]}
          </a>
        </Fragment>
      ))}
    </nav>
  );
}

/** The design's colours as CSS variables; each is a validated `#rrggbb`, so nothing here can close the rule. */
function themeCss(details: ShopDetails): string {
  const d = details.design;
  const colours: [string, string | null][] = [
    ['--primary', d.primaryColor],
    ['--primary-accent', d.primaryColorAccent],
    ['--background', d.backgroundColor],
    ['--secondary', d.secondaryColor],
    ['--text', d.primaryTextColor],
    ['--text-muted', d.secondaryTextColor],
  ];
  const set = colours.filter(([, v]) => typeof v === 'string' && /^#[0-9a-fA-F]{6}$/.test(v));
  // Readable companions of the brand colour (theme.ts): links on the page and its cards, text on buttons.
  const primary = d.primaryColor ?? '';
  const fill = fillFor(primary);
  const accentFill = fillFor(d.primaryColorAccent ?? '');
  const derived: [string, string | undefined][] = [
    ['--link', readableOn(primary, [d.backgroundColor ?? '', d.secondaryColor ?? ''].filter(Boolean))],
    ['--primary-fill', fill?.fill],
    ['--on-primary', fill?.text],
    ['--primary-accent-fill', accentFill?.fill],
    ['--on-primary-accent', accentFill?.text],
  ];
  for (const [k, v] of derived) if (v) set.push([k, v]);
  return set.length === 0 ? '' : `:root{${set.map(([k, v]) => `${k}:${v}`).join(';')}}`;
}

function socialHref(platform: string, link: string): string {
  if (platform === 'email' && !/^mailto:/i.test(link)) return `mailto:${link}`;
  return link;
}

export function Layout(props: LayoutProps) {
  const { site, details } = props;
  const lang = useLang();
  const { t } = lang;
  const { design } = details;
  const shopTitle = details.seo.metaTitle ?? details.name;
  const title = props.title ? `${props.title} · ${shopTitle}` : shopTitle;
  const description = props.description ?? details.seo.metaDescription ?? details.storefront.description;
  const image = props.image ?? details.seo.imageUrl;
  const shareImage = image ? absoluteUrl(site, image) : null;
  const canonical = props.path && !props.noindex ? canonicalUrl(site, props.path) : null;
  const theme = themeCss(details);
  const classes = [
    design.darkMode ? 'dark' : '',
    design.disableShadows ? 'flat' : '',
    design.centerProductTitle ? 'centered' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <html lang={lang.locale} class={classes || undefined}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        {description ? <meta name="description" content={description} /> : null}
        {props.noindex ? <meta name="robots" content="noindex, nofollow" /> : null}
        {canonical ? <link rel="canonical" href={canonical} /> : null}
        <meta property="og:site_name" content={details.name} />
        <meta property="og:type" content={props.ogType ?? 'website'} />
        <meta property="og:title" content={title} />
        {description ? <meta property="og:description" content={description} /> : null}
        {canonical ? <meta property="og:url" content={canonical} /> : null}
        {shareImage ? <meta property="og:image" content={shareImage} /> : null}
        <meta name="twitter:card" content={shareImage ? 'summary_large_image' : 'summary'} />
        <meta name="twitter:title" content={title} />
        {description ? <meta name="twitter:description" content={description} /> : null}
        {shareImage ? <meta name="twitter:image" content={shareImage} /> : null}
        {props.jsonLd ? (
          // A data block, never run (the CSP allows no inline script): JSON with `<` escaped, so no text closes the element.
          <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonLdText(props.jsonLd) }} />
        ) : null}
        {details.faviconUrl ? (
          <link rel="icon" href={details.faviconUrl} />
        ) : (
          <link rel="icon" type="image/svg+xml" href={assetUrl('favicon.svg')} />
        )}
        {design.fontLink ? <link rel="stylesheet" href={design.fontLink} /> : null}
        <link rel="stylesheet" href={assetUrl('storefront.css')} />
        {theme ? <style>{theme}</style> : null}
        <script src={assetUrl('storefront.js')} defer />
        {props.head}
      </head>
      {site.embed ? (
        <body class="embedded">
          <header class="embed-header">
            <span>{details.name}</span>
          </header>
          {details.onHold ? (
            <p class="notice warning" role="status">
              {t('layout.onHold')}
            </p>
          ) : null}
          <main id="main">{props.children}</main>
          <footer class="embed-footer">
            <a href={href(site, '/')} target="_blank" rel="noopener">
              {t('embed.openShop')}
            </a>
            {details.terms ? ' · ' : null}
            {details.terms ? (
              <a href={href(site, '/terms')} target="_blank" rel="noopener">
                {t('layout.terms')}
              </a>
            ) : null}
          </footer>
        </body>
      ) : (
        <body>
          <a class="skip" href="#main">
            {t('layout.skip')}
          </a>
          <header class="site-header">
            <a class="brand" href={href(site, '/')}>
              {details.logoUrl && !design.disableBusinessLogo ? (
                <img src={details.logoUrl} alt="" class="logo" />
              ) : null}
              {design.disableBusinessName ? (
                <span class="visually-hidden">{details.name}</span>
              ) : (
                <span>{details.name}</span>
              )}
            </a>
            <nav aria-label={t('layout.nav')}>
              <a href={href(site, '/')}>{t('layout.products')}</a>
              {design.disableReviews ? null : <a href={href(site, '/feedbacks')}>{t('layout.reviews')}</a>}
              <a href={href(site, '/faq')}>{t('layout.faq')}</a>
              {design.disableSupport ? null : <a href={href(site, '/support')}>{t('layout.support')}</a>}
              <a href={href(site, '/account')}>{t('layout.myOrders')}</a>
              {/* The number of lines is the script's to show (storefront.js): pages are cached alike for everyone. */}
              <a href={href(site, '/cart')}>
                {t('layout.cart')}
                <span data-cart-count hidden />
              </a>
            </nav>
          </header>
          {details.onHold ? (
            <p class="notice warning" role="status">
              {t('layout.onHold')}
            </p>
          ) : null}
          {details.popup ? (
            <aside class="notice" aria-label={t('layout.popup')}>
              {details.popup}
            </aside>
          ) : null}
          <main id="main">{props.children}</main>
          <footer class="site-footer">
            {details.socialLinks.length > 0 ? (
              <ul class="social" aria-label={t('layout.elsewhere')}>
                {details.socialLinks.map((l) => (
                  <li key={l.link}>
                    <a href={socialHref(l.platform, l.link)} rel="noopener noreferrer nofollow" target="_blank">
                      {socialName(lang, l.platform)}
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
            <p>
              {details.terms ? <a href={href(site, '/terms')}>{t('layout.terms')}</a> : null}
              {details.terms ? ' · ' : null}
              <span>{t('layout.footer', { shop: details.name })}</span>
            </p>
            <LanguageSwitcher site={site} />
          </footer>
        </body>
      )}
    </html>
  );
}

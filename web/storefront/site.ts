import type { ShopRow } from '../../src/modules/shops/index.js';
import type { shopDetails } from '../../src/modules/storefront/index.js';

/** What the pages around a shop's content show: name, design, texts, terms, links (the API's `mainDetails`). */
export type ShopDetails = Awaited<ReturnType<typeof shopDetails>>;

/** The shop a storefront request is for, and where its pages live. */
export interface Site {
  shop: ShopRow;
  /**
   * The path prefix of the shop's pages: `/s/{subdomain}` (or `/s/~{host}`) when reached through
   * the instance's own address, `''` when the Host chose the shop.
   */
  base: string;
  /**
   * Where the shop's pages live for search engines and shared links, absolute and without a
   * trailing slash: its custom domain, else its subdomain host, else `PUBLIC_URL/s/{subdomain}`
   * (the address every link shopd writes uses).
   */
  canonical: string;
  /**
   * This page's path as requested, without its query (where the language switcher comes back
   * to; the query is left out, as the page cache leaves out what a page does not read).
   */
  here: string;
  /**
   * The page is one of the shop's embed pages (`/embed/…`): framed by another website's buy
   * button (assets/embed.js), so the buyer's way through checkout stays under `/embed`.
   */
  embed: boolean;
}

/** The absolute canonical address of a page of the shop; `path` starts with `/`. */
export function canonicalUrl(site: Pick<Site, 'canonical'>, path: `/${string}`): string {
  return `${site.canonical}${path}`;
}

/** An absolute URL for a link preview or structured data: our own paths (`/uploads/…`) on the shop's canonical host. */
export function absoluteUrl(site: Pick<Site, 'canonical'>, url: string): string {
  return url.startsWith('/') && !url.startsWith('//') ? `${new URL(site.canonical).origin}${url}` : url;
}

/** The buying flow's routes twice: the shop's own (`''`), and its embed pages (`/embed`), framed by other sites. */
export const FLOW_VARIANTS = [
  ['', false],
  ['/embed', true],
] as const;

/** A page of the buying flow (product, checkout, order): under `/embed` on an embed page. */
export function flowHref(site: Pick<Site, 'base' | 'embed'>, path: `/${string}`): string {
  return href(site, site.embed ? `/embed${path}` : path);
}

/** A link to a page of the shop; `path` starts with `/`. */
export function href(site: Pick<Site, 'base'>, path: `/${string}`): string {
  return path === '/' && site.base !== '' ? `${site.base}/` : `${site.base}${path}`;
}

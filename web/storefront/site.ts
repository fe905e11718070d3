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
}

/** A link to a page of the shop; `path` starts with `/`. */
export function href(site: Pick<Site, 'base'>, path: `/${string}`): string {
  return path === '/' && site.base !== '' ? `${site.base}/` : `${site.base}${path}`;
}

import { type LinkSettings, storefrontUrl } from '../../http/storefront-url.js';

export type { LinkSettings };

/** A shop as its links need it: the subdomain, and the custom domain when the row has one. */
export interface LinkedShop {
  subdomain: string;
  custom_domain?: string | null;
}

/** An absolute link to a page of the shop's storefront, for a mail (src/http/storefront-url.ts decides the base). */
export function shopLink(config: LinkSettings, shop: LinkedShop, path: `/${string}`): string {
  return storefrontUrl(config, { subdomain: shop.subdomain, customDomain: shop.custom_domain }, path);
}

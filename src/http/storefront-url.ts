import type { Config } from '../config.js';

/** The settings every absolute link is built from (`PUBLIC_URL`, `STOREFRONT_DOMAIN`). */
export type LinkSettings = Pick<Config, 'publicUrl' | 'storefrontDomain'>;

/** What a shop's address is made of: its subdomain, and the custom domain its owner set, if any. */
export interface ShopAddress {
  subdomain: string;
  customDomain?: string | null;
}

/**
 * The absolute base of a shop's storefront, without a trailing slash, as every link shopd writes
 * (mail, webhooks, API answers) uses it: the shop's custom domain when it has one, else
 * `{subdomain}.{STOREFRONT_DOMAIN}` when that is configured, else `{PUBLIC_URL}/s/{subdomain}`.
 * Hosts take the scheme of `PUBLIC_URL` (behind TLS in production, plain http on a laptop).
 */
export function storefrontBase(config: LinkSettings, shop: ShopAddress): string {
  const scheme = config.publicUrl.startsWith('https:') ? 'https' : 'http';
  if (shop.customDomain) return `${scheme}://${shop.customDomain}`;
  if (config.storefrontDomain) return `${scheme}://${shop.subdomain}.${config.storefrontDomain}`;
  return `${config.publicUrl}/s/${shop.subdomain}`;
}

/** An absolute link to a page of the shop's storefront; `path` starts with `/`. */
export function storefrontUrl(config: LinkSettings, shop: ShopAddress, path: `/${string}`): string {
  return `${storefrontBase(config, shop)}${path}`;
}

/** Storefront paths of the pages that links point at, relative to the storefront's base. */
export const storefrontPaths = {
  invoice: (invoiceId: string) => `/invoices/${encodeURIComponent(invoiceId)}` as const,
  ticket: (ticketId: number, accessKey: string) => `/tickets/${ticketId}?key=${encodeURIComponent(accessKey)}` as const,
  account: () => '/account' as const,
};

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host as a request's Host header or a setting gives it (any case, a port, a trailing dot), in
 * the form custom domains are stored: `Shop.Example.com.:443` → `shop.example.com`. Undefined when
 * it is no dotted host name (an IP literal in brackets, `localhost`, garbage).
 */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const name = header
    .trim()
    .toLowerCase()
    .replace(/:\d{0,5}$/, '')
    .replace(/\.$/, '');
  return HOSTNAME.test(name) ? name : undefined;
}

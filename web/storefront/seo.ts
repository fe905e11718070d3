import { type LinkSettings, storefrontBase } from '../../src/http/storefront-url.js';
import { currencyDigits } from '../../src/schemas/currencies.js';
import { absoluteUrl, canonicalUrl, href, type Site } from './site.js';

/**
 * What search engines and link previews read: the shop's sitemap and robots.txt, and schema.org
 * `Product` data for product pages. Everything is built from the same views the pages show.
 */

/**
 * The shop's canonical address (`Site.canonical`): its custom domain once its DNS record proved it
 * points here, else its subdomain host, else `PUBLIC_URL/s/{subdomain}`.
 */
export function canonicalBase(
  config: LinkSettings,
  shop: { subdomain: string; custom_domain: string | null; custom_domain_verified_at: number | null },
): string {
  return storefrontBase(config, {
    subdomain: shop.subdomain,
    customDomain: shop.custom_domain_verified_at === null ? null : shop.custom_domain,
  });
}

/** JSON for a `<script type="application/ld+json">` block: `<` escaped, so no value can close the element. */
export function jsonLdText(data: object): string {
  return JSON.stringify(data).replace(/</g, '\\u003c');
}

/** An amount in major units as schema.org wants a price: a decimal string with the currency's digits (`4.50`, `450` for JPY). */
export function schemaPrice(amount: number, currency: string): string {
  return amount.toFixed(currencyDigits(currency));
}

interface ProductFacts {
  id: number;
  title: string;
  path: string;
  shortDescription?: string | null;
  description?: string | null;
  thumbnailUrl?: string | null;
  /** The gallery, after the thumbnail. */
  images?: { url: string }[];
  onHold: boolean;
  variants: { id: number; title: string; inStock: boolean; priceDetails: { amount: number; currency: string } }[];
}

/** schema.org `Product` with its offers (one per option, with price and availability) and, once it has reviews, its rating. */
export function productJsonLd(
  site: Site,
  shop: { name: string; onHold: boolean },
  product: ProductFacts,
  reviews: { rating: number | null; count: number },
): object {
  const url = canonicalUrl(site, `/products/${encodeURIComponent(product.path)}`);
  const sellable = !shop.onHold && !product.onHold;
  const offers = product.variants.map((v) => ({
    '@type': 'Offer',
    name: v.title,
    sku: `${product.id}-${v.id}`,
    price: schemaPrice(v.priceDetails.amount, v.priceDetails.currency),
    priceCurrency: v.priceDetails.currency,
    availability: `https://schema.org/${sellable && v.inStock ? 'InStock' : 'OutOfStock'}`,
    url,
    seller: { '@type': 'Organization', name: shop.name },
  }));
  const amounts = product.variants.map((v) => v.priceDetails.amount);
  const currency = product.variants[0]?.priceDetails.currency;
  const description = product.shortDescription || product.description;
  return {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: product.title,
    sku: String(product.id),
    url,
    ...(description ? { description: description.slice(0, 5000) } : {}),
    ...(product.thumbnailUrl || product.images?.length
      ? {
          image: [product.thumbnailUrl, ...(product.images ?? []).map((i) => i.url)]
            .filter((url): url is string => url !== null)
            .map((url) => absoluteUrl(site, url)),
        }
      : {}),
    brand: { '@type': 'Brand', name: shop.name },
    ...(offers.length === 1
      ? { offers: offers[0] }
      : offers.length > 1 && currency
        ? {
            offers: {
              '@type': 'AggregateOffer',
              priceCurrency: currency,
              lowPrice: schemaPrice(Math.min(...amounts), currency),
              highPrice: schemaPrice(Math.max(...amounts), currency),
              offerCount: offers.length,
              offers,
            },
          }
        : {}),
    ...(reviews.count > 0 && reviews.rating !== null
      ? {
          aggregateRating: {
            '@type': 'AggregateRating',
            ratingValue: Math.round(reviews.rating * 100) / 100,
            reviewCount: reviews.count,
            bestRating: 5,
            worstRating: 1,
          },
        }
      : {}),
  };
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xml = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

/** A sitemaps.org `urlset` of absolute URLs. */
export function sitemapXml(urls: string[]): string {
  const entries = urls.map((url) => `  <url><loc>${xml(url)}</loc></url>\n`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}</urlset>\n`;
}

/** The storefront's pages that belong to one buyer (or lead to them): no crawler's business. */
export const BUYER_PATHS = ['/checkout', '/cart', '/invoices/', '/account', '/tickets/', '/unlock', '/embed/'] as const;

/** A shop's robots.txt: its buyers' own pages are off limits; a password-protected shop is entirely. */
export function shopRobotsTxt(site: Site, locked: boolean): string {
  if (locked) return 'User-agent: *\nDisallow: /\n';
  return [
    'User-agent: *',
    ...BUYER_PATHS.map((path) => `Disallow: ${href(site, path)}`),
    '',
    `Sitemap: ${canonicalUrl(site, '/sitemap.xml')}`,
    '',
  ].join('\n');
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { type ShopRow, SUBDOMAIN, shopAtAddress } from '../../src/modules/shops/index.js';
import { cacheControlFor, etagOf, matchesIfNoneMatch, shopDetails } from '../../src/modules/storefront/index.js';
import { isHostAddressed } from './addressing.js';
import { pageHeaders, renderPage } from './render.js';
import { canonicalBase } from './seo.js';
import type { ShopDetails, Site } from './site.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The storefront's shop, set by the shop scope's preHandler (storefront routes only). */
    site: Site | null;
  }
  interface FastifyContextConfig {
    /** A storefront route that answers a password-protected shop before it is unlocked (the prompt itself). */
    storefrontOpen?: boolean;
    /** A storefront POST that only renders a page and changes nothing: no CSRF token is asked. */
    storefrontReadOnly?: boolean;
    /**
     * A storefront GET that needs no shop (no lookup, no password check, `request.site` stays
     * null): the invoice status poll, whose unguessable invoice id is its own capability.
     */
    storefrontBare?: boolean;
    /**
     * One of the shop's embed pages (`/embed/…`), which other websites may frame: answered with
     * `frame-ancestors *`, and without cookies' authority: no customer session, no password
     * unlock, so its forms need no CSRF token (a cross-site frame gets no SameSite cookie).
     */
    storefrontEmbed?: boolean;
  }
}

const HTML = 'text/html; charset=utf-8';

function readSiteShop(app: FastifyInstance, segment: string): Promise<ShopRow | undefined> {
  if (segment.startsWith('~')) return shopAtAddress(app.ctx, { domain: segment.slice(1) });
  if (!SUBDOMAIN.test(segment)) return Promise.resolve(undefined);
  return shopAtAddress(app.ctx, { subdomain: segment });
}

/**
 * Shops by address, remembered under the page cache's version of the shop. Every storefront
 * request needs its shop, and reading it was most of the cost of a cached page: T10 (bench/README.md)
 * measured the cached home page at 0.60× a static copy of its bytes with the read on every request,
 * 0.91× with this (304s: 0.48× → 0.79× of /hello). An entry is used only
 * while the shop's version is the one read with it: any change of the shop through the API (its
 * subdomain, domain, password, hold) bumps that version before it is answered, on every instance
 * when Redis holds the versions. A miss reads the row, the version, then the row again, and keeps
 * them only when both reads agree, so a change landing in between is never remembered under the
 * newer version. Like a cached page, an entry lasts `maxAgeMs` at most (a change made around the
 * API, by hand in the database). Unknown addresses are not remembered; at most `MAX_SITES` are.
 */
const MAX_SITES = 10_000;
const knownSites = new WeakMap<FastifyInstance, Map<string, { shop: ShopRow; version: string; at: number }>>();

/** The shop a `/s/{shop}` segment names: a subdomain, or `~{host}` for a custom domain. */
export async function findSiteShop(app: FastifyInstance, segment: string): Promise<ShopRow | undefined> {
  const cache = app.pageCache;
  if (!cache.enabled) return readSiteShop(app, segment);
  let sites = knownSites.get(app);
  if (!sites) {
    sites = new Map();
    knownSites.set(app, sites);
  }
  const known = sites.get(segment);
  // The age of an entry in this process's memory, bounded like the page cache's: the system's time, not the app's clock.
  const now = Date.now();
  if (known && now - known.at <= cache.maxAgeMs && (await cache.version(known.shop.id)) === known.version)
    return known.shop;
  const shop = await readSiteShop(app, segment);
  if (!shop) {
    sites.delete(segment);
    return undefined;
  }
  const version = await cache.version(shop.id);
  const again = await readSiteShop(app, segment);
  if (version !== null && again && JSON.stringify(again) === JSON.stringify(shop)) {
    sites.delete(segment);
    sites.set(segment, { shop: again, version, at: now });
    if (sites.size > MAX_SITES) sites.delete(sites.keys().next().value!);
  }
  return again;
}

export function siteOf(request: FastifyRequest, shop: ShopRow): Site {
  const segment = (request.params as { shop: string }).shop;
  return {
    shop,
    base: isHostAddressed(request.raw) ? '' : `/s/${segment}`,
    canonical: canonicalBase(request.server.config, shop),
    here: request.url.split('?')[0]!,
    embed: request.routeOptions.config.storefrontEmbed === true,
  };
}

/**
 * The storefront password, once given, is remembered in a cookie holding an HMAC of the shop id
 * and its current password hash: changing or removing the password (a new hash, fresh salt)
 * retires every such cookie, and the cookie reveals nothing of the password.
 */
export function unlockCookieName(shopId: number): string {
  return `shopd_unlock_${shopId}`;
}

export function unlockToken(app: FastifyInstance, shop: Pick<ShopRow, 'id' | 'password_hash'>): string {
  return createHmac('sha256', unlockKeyOf(app)).update(`${shop.id}\n${shop.password_hash}`).digest('base64url');
}

const unlockKeys = new WeakMap<FastifyInstance, Buffer>();
function unlockKeyOf(app: FastifyInstance): Buffer {
  let key = unlockKeys.get(app);
  if (!key) {
    key = app.secrets.deriveKey('storefront-unlock');
    unlockKeys.set(app, key);
  }
  return key;
}

export function isUnlocked(app: FastifyInstance, request: FastifyRequest, shop: ShopRow): boolean {
  if (shop.password_hash === null) return true;
  const given = request.cookies[unlockCookieName(shop.id)];
  if (!given) return false;
  const expected = Buffer.from(unlockToken(app, shop));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * The cache key of a page: its language, its address (the base tells host- from path-addressed) and
 * the query values the page reads, and nothing else, so made-up parameters (`?utm=1`, `?x=2`…) cannot fill
 * the cache with copies of one page.
 */
export function pageKeyOf(
  site: Site,
  locale: string,
  url: string,
  reads: Record<string, string | number | undefined>,
): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = Object.entries(reads)
    .filter(([, value]) => value !== undefined && value !== '')
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return `html\n${locale}\n${site.base}\n${path}${query ? `?${query}` : ''}`;
}

/**
 * Serves a public page of the shop (home, product, FAQ, reviews, terms…) through the page cache:
 * the same cache, versions and invalidation as the JSON pages, so an owner's edit is visible on
 * the next request and a hit costs no database read beyond finding the shop. A strong ETag and
 * `must-revalidate` let browsers revalidate with a bodyless 304. Pages of a password-protected
 * shop are rendered every time and `private`.
 */
export async function serveCachedPage(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  reads: Record<string, string | number | undefined>,
  render: () => Promise<VNode> | VNode,
): Promise<FastifyReply> {
  const site = request.site!;
  const lang = request.lang!;
  const cache = app.pageCache;
  const cacheControl = cacheControlFor(site.shop);
  let body: Buffer | undefined;
  let etag: string | undefined;
  if (cache.enabled && site.shop.password_hash === null) {
    const key = pageKeyOf(site, lang.locale, request.url, reads);
    let page = await cache.get(site.shop.id, key);
    if (!page) {
      const version = await cache.version(site.shop.id);
      if (version !== null) {
        const claim = cache.claimFill(site.shop.id, key, version);
        if ('wait' in claim) page = await claim.wait;
        else {
          try {
            const html = Buffer.from(renderPage(await render(), lang));
            page = cache.set(site.shop.id, key, version, {
              body: html,
              contentType: HTML,
              cacheControl,
              passwordHash: null,
            });
            claim.done(page);
          } catch (err) {
            claim.done();
            throw err;
          }
        }
      }
    }
    if (page) {
      body = page.body;
      etag = page.etag;
    }
  }
  if (!body) {
    body = Buffer.from(renderPage(await render(), lang));
    etag = etagOf(body);
  }
  void reply.headers(pageHeaders(site)).header('cache-control', cacheControl).header('etag', etag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag!)) return reply.code(304).send();
  return reply.code(200).type(HTML).send(body);
}

/** The shop's details for a page built outside the cache (invoice, ticket, account, errors). */
export function detailsOf(app: FastifyInstance, site: Site): Promise<ShopDetails> {
  return shopDetails(app.db.kysely, site.shop);
}

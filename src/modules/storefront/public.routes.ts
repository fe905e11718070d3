import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok, publicResponses } from '../../schemas/common.js';
import { recordVisit } from '../analytics/index.js';
import { PublicShopParams } from '../shops/index.js';
import { cacheControlFor, conditionalGet, matchesIfNoneMatch } from './http-cache.js';
import type { CachedPage } from './page-cache.js';
import * as schema from './schema.js';
import * as service from './service.js';
import { keyRemembered, openStorefront, UnlockedKeys } from './storefront-lock.js';

const tags = ['Storefront'];
const common =
  'A password-protected shop needs `key` (the storefront password; missing or wrong: 403 shop_locked). An unknown shop ' +
  'is a 404. Answers carry a strong `ETag` and `Cache-Control: public, max-age=0, must-revalidate` (`private` for a ' +
  'password-protected shop); a matching `If-None-Match` gets 304 without a body. Only public fields are listed: never ' +
  'serials, delivered items, e-mails, IPs, payment credentials, private or internal products. `hideProductStock` removes ' +
  'stock figures (`stock` is omitted; `inStock` stays). Every page carries `mainDetails`. Pages are served from an ' +
  'in-memory cache that every change of the shop (through the owner API, a checkout, a feedback, an expiry) empties ' +
  'before that change is answered: a page is never older than the last write.';

/** The page a visit is counted under: the path after `/shops/{shopId}`, e.g. `/listings/game-key`. */
function pageOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0]!.replace(/^.*?\/shops\/[^/]+/, '');
  try {
    return decodeURIComponent(path) || '/';
  } catch {
    return path || '/';
  }
}

/**
 * The cache key of a page: its path and query, parameters sorted. `key` stays in it: a hit is an
 * identical request that was once answered 200 under the shop's current version, so serving it
 * skips no check (validation included) that the request would fail.
 */
function pageKeyOf(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  params.sort();
  const query = params.toString();
  return query === '' ? url.slice(0, q) : `${url.slice(0, q)}?${query}`;
}

export const storefrontPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;
  const cache = app.pageCache;
  const unlocked = new UnlockedKeys();

  // A stored page is answered before validation and the handler run; a request the cache cannot
  // answer is marked so that its 200 answer is stored (onSend). Only pages that were once a 200
  // are stored, so a hit never skips a check the request would have failed. It runs at
  // preParsing, after every onRequest hook: the rate limit (a route-level onRequest hook, which
  // runs after this scope's own) counts a hit like any other request.
  //
  // The hooks of these routes are callback-style and a hit is answered without a promise when the
  // cache's versions live in this process: an async hook that answers must `return reply`, whose
  // `then` makes Fastify watch the response's end for every hit (bench T3, docs/internals.md).
  if (cache.enabled) {
    app.addHook('preParsing', (request, reply, _payload, done) => {
      if (request.method !== 'GET') return done();
      const shopId = Number((request.params as { shopId?: string }).shopId);
      if (!Number.isSafeInteger(shopId)) return done();
      const key = pageKeyOf(request.url);
      const page = cache.get(shopId, key);
      if (page instanceof Promise) {
        page.then(
          (found) => (found ? serveOr(request, reply, shopId, found, done) : fill(request, reply, shopId, key, done)),
          done,
        );
      } else if (page) serveOr(request, reply, shopId, page, done);
      else fill(request, reply, shopId, key, done);
    });
  }

  /** Answers the request with a stored page, or lets it go on (`next`) when the page needs a key it lacks. */
  function serveOr(
    request: FastifyRequest,
    reply: FastifyReply,
    shopId: number,
    page: CachedPage,
    next: (err?: Error) => void,
  ): void {
    const password = (request.query as { key?: unknown }).key;
    if (
      page.passwordHash !== null &&
      !keyRemembered(page.passwordHash, typeof password === 'string' ? password : undefined, shopId, unlocked)
    ) {
      // The handler checks the key (a guess, counted once there) and answers 403 shop_locked, as without the cache.
      next();
      return;
    }
    void reply.header('etag', page.etag).header('cache-control', page.cacheControl);
    if (matchesIfNoneMatch(request.headers['if-none-match'], page.etag)) void reply.code(304).send();
    else void reply.type(page.contentType).send(page.body);
  }

  /** A miss: served the page another request computes meanwhile, or computed by this one. */
  function fill(
    request: FastifyRequest,
    reply: FastifyReply,
    shopId: number,
    key: string,
    next: (err?: Error) => void,
  ): void {
    claimOrWait(request, shopId, key).then(
      (page) => (page ? serveOr(request, reply, shopId, page, next) : next()),
      next,
    );
  }

  /**
   * The request claims the computation of the page (its 200 is stored in onSend) and resolves to
   * nothing, or, when another request is computing that very page under the same version, waits
   * for it rather than compute it again.
   */
  async function claimOrWait(request: FastifyRequest, shopId: number, key: string): Promise<CachedPage | undefined> {
    const version = await cache.version(shopId);
    if (version === null) return undefined;
    const claim = cache.claimFill(shopId, key, version);
    if ('wait' in claim) return claim.wait;
    request.pageFill = { shopId, key, version, passwordHash: null, done: claim.done };
    // A request that ends without its answer stored (aborted, or no onSend) still releases its waiters.
    request.raw.once('close', () => {
      const unfinished = request.pageFill;
      request.pageFill = null;
      unfinished?.done();
    });
    return undefined;
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const fill = request.pageFill;
    if (fill) {
      request.pageFill = null;
      if (reply.statusCode === 200 && typeof payload === 'string') {
        const page = cache.set(fill.shopId, fill.key, fill.version, {
          body: Buffer.from(payload),
          contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
          cacheControl: String(reply.getHeader('cache-control')),
          passwordHash: fill.passwordHash,
        });
        void reply.header('etag', page.etag);
        fill.done(page);
      } else fill.done();
    }
    done(null, conditionalGet(request, reply, payload));
  });
  // A served page (not a 304 revalidation, not an error) counts as a visit, buffered (never awaited).
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method === 'GET' && reply.statusCode === 200) {
      const userAgent = request.headers['user-agent'];
      recordVisit(app, {
        shopId: (request.params as { shopId: number }).shopId,
        page: pageOf(request),
        ip: request.ip ?? null,
        userAgent: typeof userAgent === 'string' ? userAgent : null,
      });
    }
    done();
  });

  /** The shop opened with the page's `key`, with the caching policy its password implies. */
  async function open(
    request: {
      params: { shopId: number };
      query: { key?: string | undefined };
      pageFill: FastifyRequest['pageFill'];
      ip: string;
    },
    reply: FastifyReply,
  ) {
    const shop = await openStorefront(db, request.params.shopId, request.query.key, unlocked, {
      limits: app.passwordGuesses,
      ip: request.ip,
    });
    void reply.header('cache-control', cacheControlFor(shop));
    if (request.pageFill) request.pageFill.passwordHash = shop.password_hash;
    return shop;
  }

  app.get('/shops/:shopId/main', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Storefront main page',
      description:
        '`shop` (storefront texts and statistics: average rating to 2 decimals or null, feedback count, units sold, customers ' +
        'with a completed order), the latest 10 feedbacks, listed announcements, listings and categories. Listings leave out ' +
        'private, internal and unlisted products; a group shows its listed products only and is left out when none remains; ' +
        'on-hold products are shown with `onHold: true`. ' +
        common,
      params: PublicShopParams,
      querystring: schema.KeyQuery,
      response: publicResponses(schema.MainPage, [403]),
    },
    handler: async (request, reply) => ok(await service.mainPage(db, await open(request, reply))),
  });

  app.get('/shops/:shopId/listings', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Storefront products page',
      description:
        'Listings in storefront order (position, then id) and categories (each with the ids of listings shown here). ' +
        common,
      params: PublicShopParams,
      querystring: schema.KeyQuery,
      response: publicResponses(schema.ListingsPage, [403]),
    },
    handler: async (request, reply) => ok(await service.listingsPage(db, await open(request, reply))),
  });

  app.get('/shops/:shopId/listings/:listingPath', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Storefront product page',
      description:
        'The product or group at this path: a product with its variants (price, stock, the gateways it can be paid with now ' +
        'and their prices, custom fields, quantity limits, warranty), or a group with its listed products. Unlisted products ' +
        'are reachable here; private and internal ones are a 404 like an unknown path, and so is a group with no listed ' +
        'product. With the latest 10 feedbacks of orders that bought it and their rating. ' +
        common,
      params: schema.ListingParams,
      querystring: schema.KeyQuery,
      response: publicResponses(schema.ListingPage, [403]),
    },
    handler: async (request, reply) =>
      ok(await service.listingPage(db, await open(request, reply), request.params.listingPath)),
  });

  app.get('/shops/:shopId/feedbacks', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Storefront feedbacks page',
      description:
        'Feedbacks, newest first (id as tie-break), paged with `pageNumber`/`pageSize` or a keyset `cursor`; `searchString` ' +
        'matches the comment and the answer. A feedback whose appeal was accepted is not shown or counted. Products bought ' +
        'are named as on the invoice, private and internal ones left out. ' +
        common,
      params: PublicShopParams,
      querystring: schema.FeedbacksQuery,
      response: publicResponses(schema.FeedbacksPage, [403]),
    },
    handler: async (request, reply) => ok(await service.feedbacksPage(db, await open(request, reply), request.query)),
  });

  app.get('/shops/:shopId/faqs', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Storefront FAQs page',
      description: `Every FAQ of the shop, by position, then id. ${common}`,
      params: PublicShopParams,
      querystring: schema.KeyQuery,
      response: publicResponses(schema.FaqsPage, [403]),
    },
    handler: async (request, reply) => ok(await service.faqsPage(db, await open(request, reply))),
  });

  app.get('/shops/:shopId/announcements/:announcementPath', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Storefront announcement page',
      description:
        'The announcement at this path; unlisted ones are reachable, private ones are a 404 like an unknown path. ' +
        'Its fields are also at the top of `data`, beside `announcement`, as the original clients read them. ' +
        common,
      params: schema.AnnouncementParams,
      querystring: schema.KeyQuery,
      response: publicResponses(schema.AnnouncementPage, [403]),
    },
    handler: async (request, reply) =>
      ok(await service.announcementPage(db, await open(request, reply), request.params.announcementPath)),
  });
};

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { redisHealth } from '../../http/redis-health.js';
import { etagOf } from './http-cache.js';

/**
 * Serialised public pages, kept in memory (contract section 9, issue 7). A page is a pure
 * function of the shop's data and the request's path and query, so it is computed once and
 * served from memory until that shop's data changes. Every change calls `invalidate(shopId)`
 * (`shopContentChanged` below) before its response is sent; a stored page carries the version
 * it was computed under, and a page computed from data read before a change can never be served
 * after it: it was stored under the old version.
 *
 * Versions live in this process, or in Redis when it is configured, so that every instance sees
 * an edit made through any other one before that edit's response is sent; while Redis is down the
 * cache is bypassed (`redisVersions`). An entry also expires
 * after `maxAgeMs`, a bound on staleness should a change ever bypass the API (an operator editing
 * the database by hand).
 */
export interface CachedPage {
  /** UTF-8, encoded once: a page with any non-ASCII character would otherwise be transcoded on every send. */
  body: Buffer;
  etag: string;
  contentType: string;
  cacheControl: string;
  /** The shop's password hash when the page was computed: a hit must still present the key. */
  passwordHash: string | null;
}

interface Entry extends CachedPage {
  version: string;
  storedAt: number;
}

interface ShopPages {
  version: string;
  pages: Map<string, Entry>;
  bytes: number;
}

/** Where a shop's version lives: this process, or Redis (shared by every instance). */
interface VersionSource {
  /** The shop's version; null when it cannot be read now. */
  current(shopId: number): string | null | Promise<string | null>;
  bump(shopId: number): void | Promise<void>;
}

function localVersions(): VersionSource {
  const versions = new Map<number, number>();
  return {
    current: (shopId) => String(versions.get(shopId) ?? 0),
    bump: (shopId) => void versions.set(shopId, (versions.get(shopId) ?? 0) + 1),
  };
}

/**
 * Versions in Redis, which may be down (src/http/redis-health.ts). While it cannot be read, the
 * version is null: nothing is served from memory or stored, every page is computed. A change that
 * cannot be written to Redis is remembered and written once Redis answers again, so other
 * instances drop their pages of that shop then. And what this instance holds cannot be vouched for
 * after an outage (a change made elsewhere meanwhile may never have reached Redis): each
 * (re)connection starts a new epoch, part of every version read, so no page stored before it is
 * served after it, and `forget` drops them all.
 */
function redisVersions(redis: Redis, prefix: string, forget: () => void): VersionSource {
  const health = redisHealth(redis);
  const key = (shopId: number) => `${prefix}pages:{${shopId}}:version`;
  const unannounced = new Set<number>();
  let announcing = false;
  const announce = async () => {
    if (announcing) return;
    announcing = true;
    try {
      for (const shopId of unannounced) {
        await redis.incr(key(shopId));
        unannounced.delete(shopId);
      }
    } catch (err) {
      health.fellBack('page_cache', err);
    } finally {
      announcing = false;
    }
  };
  let epoch = 0;
  redis.on('ready', () => {
    epoch++;
    forget();
    if (unannounced.size > 0) void announce();
  });
  return {
    current: async (shopId) => {
      if (!health.up) {
        health.fellBack('page_cache');
        return null;
      }
      const at = epoch;
      try {
        const version = `${at}:${(await redis.get(key(shopId))) ?? '0'}`;
        // A change that failed to be written while the connection stayed up is retried on success.
        if (unannounced.size > 0) void announce();
        return version;
      } catch (err) {
        health.fellBack('page_cache', err);
        return null;
      }
    },
    // Tried even while down: the server's client refuses at once, a command-line one (no
    // connection yet) queues it until it connects.
    bump: async (shopId) => {
      try {
        await redis.incr(key(shopId));
      } catch (err) {
        health.fellBack('page_cache', err);
        unannounced.add(shopId);
      }
    },
  };
}

export interface PageCacheOptions {
  maxBytes: number;
  maxAgeMs?: number;
  redis?: { client: Redis; prefix: string } | null;
}

export class PageCache {
  private readonly shops = new Map<number, ShopPages>();
  private readonly versions: VersionSource;
  private bytes = 0;
  readonly maxBytes: number;
  readonly maxAgeMs: number;

  constructor(options: PageCacheOptions) {
    this.maxBytes = options.maxBytes;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.versions = options.redis
      ? redisVersions(options.redis.client, options.redis.prefix, () => this.clear())
      : localVersions();
  }

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /**
   * The shop's current version; null when it cannot be read (then nothing is cached or served).
   * Read at once (no promise) when versions live in this process, from Redis otherwise.
   */
  version(shopId: number): string | null | Promise<string | null> {
    return this.versions.current(shopId);
  }

  /** Lookups answered from memory and not, since the start (the operator's metrics). */
  readonly lookups = { hits: 0, misses: 0 };

  /**
   * The page stored under `key` for the shop's current version, if any. Answered at once when
   * versions live in this process: a hit then costs no promise (the public pages' hot path).
   */
  get(shopId: number, key: string, now = Date.now()): CachedPage | undefined | Promise<CachedPage | undefined> {
    const entry = this.shops.get(shopId)?.pages.get(key);
    if (!entry || now - entry.storedAt > this.maxAgeMs) return this.counted(undefined);
    const version = this.version(shopId);
    if (typeof version === 'string' || version === null)
      return this.counted(version === entry.version ? entry : undefined);
    return version.then((current) => this.counted(current === entry.version ? entry : undefined));
  }

  private counted(entry: CachedPage | undefined): CachedPage | undefined {
    if (entry) this.lookups.hits++;
    else this.lookups.misses++;
    return entry;
  }

  /** Stores a page computed under `version` (read before its data was). */
  set(
    shopId: number,
    key: string,
    version: string,
    page: Omit<CachedPage, 'etag'> & { etag?: string },
    now = Date.now(),
  ): CachedPage {
    const entry: Entry = { ...page, etag: page.etag ?? etagOf(page.body), version, storedAt: now };
    const size = entry.body.length + key.length;
    if (size > this.maxBytes / 4) return entry;
    let shop = this.shops.get(shopId);
    if (!shop || shop.version !== version) {
      this.drop(shopId);
      shop = { version, pages: new Map(), bytes: 0 };
      this.shops.set(shopId, shop);
    }
    const previous = shop.pages.get(key);
    if (previous) this.forget(shop, key, previous);
    shop.pages.set(key, entry);
    shop.bytes += size;
    this.bytes += size;
    // Over budget: whole shops go, least recently filled first.
    for (const oldest of this.shops.keys()) {
      if (this.bytes <= this.maxBytes) break;
      if (oldest !== shopId) this.drop(oldest);
    }
    return entry;
  }

  private readonly fills = new Map<string, Promise<CachedPage | undefined>>();

  /**
   * One computation per page and version: the first request that misses computes the page and
   * gets `done` to call with it once stored (or with nothing when it failed); requests missing
   * the same page under the same version meanwhile get `wait`, which settles with that page (at
   * most `maxWaitMs`). A waiter may be served that page even if the version has moved on since:
   * it was computed from data read after the waiter read the version, so it holds every write
   * answered before the waiter arrived.
   */
  claimFill(
    shopId: number,
    key: string,
    version: string,
    maxWaitMs = 5000,
  ): { done: (page?: CachedPage) => void } | { wait: Promise<CachedPage | undefined> } {
    const id = `${shopId}\n${version}\n${key}`;
    const running = this.fills.get(id);
    if (running)
      return {
        wait: Promise.race([
          running,
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), maxWaitMs).unref()),
        ]),
      };
    let done!: (page?: CachedPage) => void;
    const filled = new Promise<CachedPage | undefined>((resolve) => (done = resolve));
    this.fills.set(id, filled);
    return {
      // Once only: a later call never releases another request's claim of the same page.
      done: (page) => {
        if (this.fills.get(id) === filled) this.fills.delete(id);
        done(page);
      },
    };
  }

  /** The shop's data changed: every stored page of it is out of date from now on. */
  async invalidate(shopId: number): Promise<void> {
    this.drop(shopId);
    await this.versions.bump(shopId);
  }

  get size(): { shops: number; bytes: number } {
    return { shops: this.shops.size, bytes: this.bytes };
  }

  /** Drops every stored page. */
  private clear(): void {
    this.shops.clear();
    this.bytes = 0;
  }

  private forget(shop: ShopPages, key: string, entry: Entry): void {
    const size = entry.body.length + key.length;
    shop.pages.delete(key);
    shop.bytes -= size;
    this.bytes -= size;
  }

  private drop(shopId: number): void {
    const shop = this.shops.get(shopId);
    if (!shop) return;
    this.bytes -= shop.bytes;
    this.shops.delete(shopId);
  }
}

/**
 * Every page cache of this process (one per app; tests build many). Code that changes a shop's
 * public data outside an HTTP write (expiry returning reserved stock) announces it here.
 */
const caches = new Set<PageCache>();

export function registerPageCache(cache: PageCache): () => void {
  caches.add(cache);
  return () => void caches.delete(cache);
}

/** The shop's public pages are out of date in every cache of this process (and, with Redis, everywhere). */
export async function shopContentChanged(shopId: number): Promise<void> {
  await Promise.all([...caches].map((cache) => cache.invalidate(shopId).catch(() => undefined)));
}

/**
 * onSend hook of the owner and public scopes: a successful write through the API empties the
 * shop's pages before its answer leaves, so the writer's next read (and everyone's) is fresh.
 * Owner requests name the shop they were authorised for; public ones (checkout, tickets) the
 * shop in their path. A failed write changed nothing and leaves the cache alone.
 */
export function invalidateAfterWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  const shopId = changedShopOf(request, reply);
  // Reads (every public page served) pass at once, without a promise.
  if (shopId === undefined) done(null, payload);
  else shopContentChanged(shopId).then(() => done(null, payload), done);
}

/** The shop a successful write changed, if the request is one. */
function changedShopOf(request: FastifyRequest, reply: FastifyReply): number | undefined {
  if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400) return undefined;
  if (request.routeOptions.config.keepsPages) return undefined;
  const shopId = request.principal
    ? request.shop?.id
    : Number((request.params as { shopId?: unknown } | undefined)?.shopId);
  return shopId !== undefined && Number.isSafeInteger(shopId) ? shopId : undefined;
}

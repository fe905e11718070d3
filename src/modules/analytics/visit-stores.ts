import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ServiceUnavailableError } from '../../http/errors.js';
import { redisHealth } from '../../http/redis-health.js';
import * as repo from './repository.js';
import { MINUTE_MS } from './repository.js';

/** Views of one page by one visitor within one minute, as stored: the visitor is already a hash. */
export interface StoredVisit {
  shopId: number;
  visitor: string;
  page: string;
  /** The first view's time. */
  at: number;
  views: number;
}

/** Whole minutes since the epoch, inclusive: `first` … `last`. */
export interface MinuteWindow {
  first: number;
  last: number;
}

/**
 * Where real-time visits live: the `visits` table (one instance), or Redis counters that every
 * instance shares. Both answer in whole minutes, so they give the same figures.
 */
export interface VisitStore {
  /** Stores a batch of views in one round trip (one transaction, one pipeline). */
  addMany(visits: StoredVisit[]): Promise<void>;
  /** Visits per minute of the window (minutes without visits may be absent). */
  perMinute(shopId: number, window: MinuteWindow): Promise<Map<number, number>>;
  distinctVisitors(shopId: number, window: MinuteWindow): Promise<number>;
  /** The most visited pages of the window, most visits first, then by page. */
  topPages(shopId: number, window: MinuteWindow, limit: number): Promise<{ page: string; visits: number }[]>;
}

const span = (w: MinuteWindow): repo.Span => ({ from: w.first * MINUTE_MS, until: (w.last + 1) * MINUTE_MS });

export function databaseVisitStore(db: Kysely<Database>): VisitStore {
  return {
    addMany: (visits) => repo.insertVisits(db, visits),
    perMinute: async (shopId, window) =>
      new Map((await repo.visitsPerMinute(db, shopId, span(window))).map((r) => [r.minute, r.visits])),
    distinctVisitors: (shopId, window) => repo.distinctVisitors(db, shopId, span(window)),
    topPages: (shopId, window, limit) => repo.topPages(db, shopId, span(window), limit),
  };
}

/** Redis keys live a little over the two hours a real-time read can look back. */
const REDIS_TTL_SECONDS = 2 * 60 * 60 + 120;

function minutesOf(window: MinuteWindow): number[] {
  return Array.from({ length: window.last - window.first + 1 }, (_, i) => window.first + i);
}

/** Throws the first error of a pipeline's replies. */
function repliesOf(results: [Error | null, unknown][] | null): unknown[] {
  if (!results) throw new Error('redis pipeline was discarded');
  for (const [err] of results) if (err) throw err;
  return results.map(([, value]) => value);
}

/**
 * Per shop and minute: a counter of views, a HyperLogLog of visitors (PFCOUNT over several
 * minutes counts each visitor once; exact for small numbers, within about 1 % at scale) and a
 * sorted set of pages by views. The `{shopId}` hash tag keeps a shop's keys in one cluster slot,
 * so multi-key reads work on Redis Cluster too.
 *
 * While Redis is down (src/http/redis-health.ts), views are not recorded (a batch that cannot be
 * stored is dropped and counted, never an error of the pages served) and reads are a 503 that
 * says why: the figures live in Redis alone.
 */
export function redisVisitStore(redis: Redis, prefix: string): VisitStore {
  const key = (shopId: number, minute: number, kind: 'count' | 'visitors' | 'pages') =>
    `${prefix}visits:{${shopId}}:${minute}:${kind}`;
  const health = redisHealth(redis);
  /** Runs a read; while Redis is down, a 503 instead of its error. */
  const read = async <T>(run: () => Promise<T>): Promise<T> => {
    if (health.up) {
      try {
        return await run();
      } catch (err) {
        health.fellBack('visits', err);
        if (health.up) throw err;
      }
    } else health.fellBack('visits');
    throw new ServiceUnavailableError(
      'Real-time visits are kept in Redis, which does not answer now; try again shortly.',
      5,
    );
  };
  return {
    async addMany(visits) {
      if (!health.up) return health.fellBack('visits');
      // One pipeline per batch; each key's counters are summed first and its expiry set once.
      const counts = new Map<string, number>();
      const visitors = new Map<string, Set<string>>();
      const pages = new Map<string, Map<string, number>>();
      for (const visit of visits) {
        const minute = Math.floor(visit.at / MINUTE_MS);
        const count = key(visit.shopId, minute, 'count');
        counts.set(count, (counts.get(count) ?? 0) + visit.views);
        const seen = key(visit.shopId, minute, 'visitors');
        if (!visitors.has(seen)) visitors.set(seen, new Set());
        visitors.get(seen)!.add(visit.visitor);
        const viewed = key(visit.shopId, minute, 'pages');
        if (!pages.has(viewed)) pages.set(viewed, new Map());
        const byPage = pages.get(viewed)!;
        byPage.set(visit.page, (byPage.get(visit.page) ?? 0) + visit.views);
      }
      const pipeline = redis.pipeline();
      for (const [k, n] of counts) pipeline.incrby(k, n).expire(k, REDIS_TTL_SECONDS);
      for (const [k, hashes] of visitors) pipeline.pfadd(k, ...hashes).expire(k, REDIS_TTL_SECONDS);
      for (const [k, byPage] of pages) {
        for (const [page, n] of byPage) pipeline.zincrby(k, n, page);
        pipeline.expire(k, REDIS_TTL_SECONDS);
      }
      try {
        repliesOf(await pipeline.exec());
      } catch (err) {
        health.fellBack('visits', err);
        // Lost with the connection: dropped, as the outage's warning says. Any other failure is logged.
        if (health.up) throw err;
      }
    },
    async perMinute(shopId, window) {
      const minutes = minutesOf(window);
      const counts = await read(() => redis.mget(minutes.map((m) => key(shopId, m, 'count'))));
      return new Map(minutes.map((m, i) => [m, Number(counts[i] ?? 0)]));
    },
    async distinctVisitors(shopId, window) {
      return read(() => redis.pfcount(minutesOf(window).map((m) => key(shopId, m, 'visitors'))));
    },
    async topPages(shopId, window, limit) {
      const replies = await read(() => {
        const pipeline = redis.pipeline();
        for (const m of minutesOf(window)) pipeline.zrange(key(shopId, m, 'pages'), 0, -1, 'WITHSCORES');
        return pipeline.exec();
      });
      const totals = new Map<string, number>();
      for (const reply of repliesOf(replies) as string[][]) {
        for (let i = 0; i < reply.length; i += 2)
          totals.set(reply[i]!, (totals.get(reply[i]!) ?? 0) + Number(reply[i + 1]));
      }
      return [...totals]
        .map(([page, visits]) => ({ page, visits }))
        .sort((a, b) => b.visits - a.visits || (a.page < b.page ? -1 : a.page > b.page ? 1 : 0))
        .slice(0, limit);
    },
  };
}

import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { toIso } from '../../schemas/common.js';
import { MINUTE_MS, pruneVisits } from './repository.js';
import { databaseVisitStore, redisVisitStore, type StoredVisit, type VisitStore } from './visit-stores.js';

/** How far back real-time figures look; older visits are dropped. */
export const VISIT_RETENTION_MS = 2 * 60 * 60 * 1000;
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const MAX_PAGE_LENGTH = 200;
const MAX_REMEMBERED_VISITORS = 10_000;
const recentVisitors = new Map<string, string>();

/** Distinct visitors without keeping an IP: the same shop, IP and user agent are the same visitor. */
export function visitorHash(shopId: number, ip: string | null, userAgent: string | null): string {
  const input = `${shopId}\n${ip ?? ''}\n${userAgent ?? ''}`;
  let hash = recentVisitors.get(input);
  if (hash === undefined) {
    hash = createHash('sha256').update(input).digest('hex');
    // A visitor loads several pages: their hash is kept for the next ones (a bounded memo, emptied when full).
    if (recentVisitors.size >= MAX_REMEMBERED_VISITORS) recentVisitors.clear();
    recentVisitors.set(input, hash);
  }
  return hash;
}

/** Redis when configured (shared by every instance), else this instance's database. */
export function visitStoreOf(app: FastifyInstance): VisitStore {
  return app.redis ? redisVisitStore(app.redis, app.config.redisKeyPrefix) : databaseVisitStore(app.ctx.db);
}

/**
 * Page views are buffered in memory and stored in batches (every `intervalMs`, or sooner when
 * `maxBuffered` rows are waiting), aggregated: repeated views of a page by the same visitor in
 * the same minute are one row with their count, so a busy storefront writes a few rows per batch
 * instead of a row per page served, in one transaction or Redis pipeline. A real-time read first
 * flushes this instance's buffer, so it counts every view served here; views served by other
 * instances arrive within `intervalMs`.
 */
export class VisitRecorder {
  private buffer = new Map<string, StoredVisit>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: () => VisitStore,
    private readonly onError: (err: unknown) => void,
    intervalMs = 250,
    private readonly maxBuffered = 2000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  add(visit: Omit<StoredVisit, 'views'>): void {
    const key = `${visit.shopId}\n${Math.floor(visit.at / MINUTE_MS)}\n${visit.visitor}\n${visit.page}`;
    const row = this.buffer.get(key);
    if (row) {
      row.views++;
      return;
    }
    this.buffer.set(key, { ...visit, views: 1 });
    if (this.buffer.size >= this.maxBuffered) void this.flush();
  }

  /** Stores what is buffered; resolves once it (and any flush before it) is stored or logged. */
  flush(): Promise<void> {
    const batch = [...this.buffer.values()];
    this.buffer = new Map();
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.store().addMany(batch);
      } catch (err) {
        this.onError(err);
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

export function startVisitRecorder(app: FastifyInstance): VisitRecorder {
  return new VisitRecorder(
    () => visitStoreOf(app),
    (err) => app.log.warn({ err }, 'recording visits failed'),
  );
}

/**
 * Records a public page view: visitor = sha256(shopId + ip + userAgent), no raw IP kept. Never
 * throws (logs): a page is served whether or not its view could be counted. Buffered (see
 * VisitRecorder); `now` lets tests place views in time.
 */
export function recordVisit(
  app: FastifyInstance,
  visit: { shopId: number; page: string; ip: string | null; userAgent: string | null },
  now?: number,
): void {
  try {
    app.visitRecorder.add({
      shopId: visit.shopId,
      visitor: visitorHash(visit.shopId, visit.ip, visit.userAgent),
      page: visit.page.slice(0, MAX_PAGE_LENGTH),
      at: now ?? app.ctx.clock.now(),
    });
  } catch (err) {
    app.log.warn({ err, shopId: visit.shopId }, 'recording a visit failed');
  }
}

const SERIES_MINUTES = 30;
const HOUR_MINUTES = 60;
const ACTIVE_MINUTES = 5;
const TOP_PAGES = 10;

/**
 * Real-time figures at `at`, in whole minutes: the current minute (the one holding `at`) and
 * the ones before it. Active visitors: distinct visitors of the last 5 minutes; visits of the
 * last 60 minutes; a 30-point series; the 10 most visited pages of the last hour.
 */
export async function realTimeVisits(store: VisitStore, shopId: number, at: number) {
  const current = Math.floor(at / MINUTE_MS);
  const hour = { first: current - HOUR_MINUTES + 1, last: current };
  const [perMinute, activeVisitors, topPages] = await Promise.all([
    store.perMinute(shopId, hour),
    store.distinctVisitors(shopId, { first: current - ACTIVE_MINUTES + 1, last: current }),
    store.topPages(shopId, hour, TOP_PAGES),
  ]);
  let visitsLastHour = 0;
  for (const visits of perMinute.values()) visitsLastHour += visits;
  const series = Array.from({ length: SERIES_MINUTES }, (_, i) => {
    const minute = current - SERIES_MINUTES + 1 + i;
    return { minute: toIso(minute * MINUTE_MS), visits: perMinute.get(minute) ?? 0 };
  });
  return { at: toIso(at), activeVisitors, visitsLastHour, series, topPages };
}

/**
 * Without Redis, visits are rows: drop those past the real-time window every ten minutes (an
 * unref'd timer, stopped when the app closes). With Redis, keys expire by themselves.
 */
export function startVisitPruner(app: FastifyInstance): { stop(): void } {
  if (app.redis) return { stop: () => {} };
  const timer = setInterval(() => {
    pruneVisits(app.ctx.db, app.ctx.clock.now() - VISIT_RETENTION_MS).catch((err: unknown) =>
      app.log.warn({ err }, 'pruning visits failed'),
    );
  }, PRUNE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

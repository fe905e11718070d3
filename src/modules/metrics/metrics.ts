import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { RateLimitedError, UnauthorizedError } from '../../http/errors.js';
import { redisHealth } from '../../http/redis-health.js';
import { mailBacklog } from '../mail/index.js';
import type { CheckoutOutcome } from '../orders/index.js';
import { deliveryBacklog } from '../webhooks/index.js';

/**
 * The operator's metrics, in Prometheus's text format at `GET /metrics` (behind `METRICS_TOKEN`).
 * Each app has a registry of its own (tests build many apps in one process). What is counted on
 * the request path is an observation in memory; what needs the database (the outbox backlogs) is
 * read when Prometheus scrapes, never per request. Off (no hook, nothing counted, `/metrics` a
 * 404) when no token is configured.
 */
export interface Metrics {
  readonly registry: Registry;
  countCheckout(outcome: CheckoutOutcome): void;
}

const checkoutOutcomes: CheckoutOutcome[] = ['placed', 'out_of_stock', 'blocked', 'refused', 'failed'];
const statements = new Set(['select', 'insert', 'update', 'delete']);

/** `select`, `insert`, `update`, `delete`, or `other` (transactions, DDL, `with`): a bounded label. */
function statementOf(sql: string): string {
  const word = /^\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase();
  return word !== undefined && statements.has(word) ? word : 'other';
}

/**
 * Creates the app's metrics and counts every request it answers from now on: call it before the
 * routes are registered. The route label is the route's pattern (`/self/:shopId/products/:productId`),
 * `unmatched` for a 404 no route took, so the labels stay a bounded set whatever the paths.
 */
export function registerMetrics(app: FastifyInstance): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Histogram({
    name: 'shopd_http_request_duration_seconds',
    help: 'Time to answer a request, by method, route pattern and status code (its _count is the request count).',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    requests.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  });

  const queries = new Histogram({
    name: 'shopd_db_query_duration_seconds',
    help:
      'Time of each database statement run on the main connection or pool, by kind. On SQLite it is the time the event ' +
      'loop was blocked; heavy reads on the reader thread are not included.',
    labelNames: ['statement'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const stopObserving = app.db.observeQueries((event) =>
    queries.observe({ statement: statementOf(event.sql) }, event.durationMs / 1000),
  );
  app.addHook('onClose', async () => stopObserving());

  const { db } = app;
  if (db.poolStats() !== null) {
    new Gauge({
      name: 'shopd_db_pool_connections',
      help: 'PostgreSQL connections of this instance’s pool, open (total) and idle.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const pool = db.poolStats()!;
        this.set({ state: 'total' }, pool.total);
        this.set({ state: 'idle' }, pool.idle);
      },
    });
    new Gauge({
      name: 'shopd_db_pool_waiting_queries',
      help: 'Queries of this instance waiting for a free PostgreSQL connection.',
      registers: [registry],
      collect() {
        this.set(db.poolStats()!.waiting);
      },
    });
  }

  // Both outbox gauges of one scrape share one read of each outbox.
  let reading: Promise<{ mail: Backlog; webhooks: Backlog } | null> | null = null;
  const backlogs = () =>
    (reading ??= Promise.all([mailBacklog(app.ctx), deliveryBacklog(app.ctx)])
      .then(
        ([mail, webhooks]) => ({ mail, webhooks }),
        (err: unknown) => {
          app.log.warn({ err }, 'metrics: the outbox backlogs could not be read');
          return null;
        },
      )
      .finally(() => (reading = null)));
  new Gauge({
    name: 'shopd_outbox_backlog',
    help: 'Mail not yet sent and webhook deliveries not yet settled (pending or in flight), across all shops and instances.',
    labelNames: ['outbox'] as const,
    registers: [registry],
    async collect() {
      const read = await backlogs();
      this.reset();
      if (!read) return;
      this.set({ outbox: 'mail' }, read.mail.count);
      this.set({ outbox: 'webhooks' }, read.webhooks.count);
    },
  });
  new Gauge({
    name: 'shopd_outbox_oldest_age_seconds',
    help: 'How long the oldest unsent mail or unsettled webhook delivery has waited (0 when there is none).',
    labelNames: ['outbox'] as const,
    registers: [registry],
    async collect() {
      const read = await backlogs();
      this.reset();
      if (!read) return;
      const now = Date.now();
      const age = (b: Backlog) => (b.oldestCreatedAt === null ? 0 : Math.max(0, now - b.oldestCreatedAt) / 1000);
      this.set({ outbox: 'mail' }, age(read.mail));
      this.set({ outbox: 'webhooks' }, age(read.webhooks));
    },
  });

  const cache = app.pageCache;
  new Counter({
    name: 'shopd_page_cache_lookups_total',
    help: 'Public pages looked up in this instance’s page cache: served from memory (hit) or computed (miss).',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ result: 'hit' }, cache.lookups.hits);
      this.inc({ result: 'miss' }, cache.lookups.misses);
    },
  });
  new Gauge({
    name: 'shopd_page_cache_bytes',
    help: 'Memory held by this instance’s page cache.',
    registers: [registry],
    collect() {
      this.set(cache.size.bytes);
    },
  });

  // Redis is an accelerator (src/http/redis-health.ts): whether it is usable, and how often each use did without it.
  if (app.redis) {
    const health = redisHealth(app.redis);
    new Gauge({
      name: 'shopd_redis_up',
      help: 'Whether this instance’s Redis connection is ready (1) or down (0, every use falls back).',
      registers: [registry],
      collect() {
        this.set(health.up ? 1 : 0);
      },
    });
    new Counter({
      name: 'shopd_redis_fallbacks_total',
      help:
        'Uses of Redis that did without it (connection down or command failed), by use: rate_limit (counted in this ' +
        'instance’s memory), auth_limits (failed-authentication and sign-in budgets, in memory), page_cache (page ' +
        'computed, not cached; or a change announced later) and visits (real-time views not recorded or not read).',
      labelNames: ['use'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [use, count] of health.fallbacks) this.inc({ use }, count);
      },
    });
  }

  const checkouts = new Counter({
    name: 'shopd_checkouts_total',
    help:
      'Checkouts (API and storefront) by outcome: placed, out_of_stock, blocked (blacklist or VPN rules), refused (any ' +
      'other refusal by the order rules; a body the schema refuses is a 400 counted only by the request histogram) or ' +
      'failed (a server or payment provider error).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of checkoutOutcomes) checkouts.inc({ outcome }, 0);

  return { registry, countCheckout: (outcome) => checkouts.inc({ outcome }) };
}

interface Backlog {
  count: number;
  oldestCreatedAt: number | null;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `GET /metrics`: the registry in Prometheus's text format, for `Authorization: Bearer
 * <METRICS_TOKEN>` only (compared in constant time). Outside the rate limits (a scraper polls),
 * but wrong tokens count as failed authentications of the client, and past
 * RATE_LIMIT_AUTH_FAILURES_MAX are a 429. Not in the OpenAPI document: it is the operator's, not
 * the API's.
 */
export async function metricsRoutes(app: FastifyInstance, options: { metrics: Metrics; token: string }) {
  const expected = digest(`Bearer ${options.token}`);
  app.get('/metrics', { config: { rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
    const given = request.headers.authorization;
    if (typeof given !== 'string' || !timingSafeEqual(digest(given), expected)) {
      // A wrong token may be a guess: counted with unknown API keys, per client (auth-failures.ts).
      const failures = app.authFailures;
      const blockedFor = failures ? await failures.blockedFor(request.ip) : null;
      if (blockedFor !== null) {
        throw new RateLimitedError(
          `Too many requests with a wrong token from this address; retry in ${blockedFor} s.`,
          blockedFor,
        );
      }
      await failures?.recordFailure(request.ip);
      void reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new UnauthorizedError('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    }
    return reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics());
  });
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import fastifyStatic from '@fastify/static';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { expireOverdue } from '../src/modules/orders/lifecycle.service.js';
import { CheckoutBody } from '../src/modules/orders/schema.js';
import { type Engine, serverEnv } from './config.js';
import { addMailBenchRoutes } from './mail-routes.js';
import { ensurePgDatabase } from './pg-admin.js';
import { appliedMigrations } from './seed.js';

/**
 * The process under test: the production app (buildApp) on the benchmark database, plus the
 * baselines the runner compares against and a few probes. Started by bench/run.ts as a child
 * process; prints `BENCH_SERVER_READY <json>` once it listens.
 */
const engine: Engine = process.argv.includes('--pg') ? 'postgres' : 'sqlite';

interface QueryEvent {
  sql: string;
  durationMs: number;
}
interface Optional {
  pageCache?: { invalidate(shopId: number): unknown };
}
interface OptionalDb {
  observeQueries?: (listener: (event: QueryEvent) => void) => unknown;
}

/** Pre-serialised JSON of exactly `bytes` bytes, built once per size. */
const statics = new Map<number, string>();
function staticJson(bytes: number): string {
  let body = statics.get(bytes);
  if (!body) {
    body = `{"data":"${'x'.repeat(Math.max(0, bytes - 11))}"}`;
    statics.set(bytes, body);
  }
  return body;
}
const Bytes = Type.Integer({ minimum: 11, maximum: 16 * 1024 * 1024 });

function addBenchRoutes(app: FastifyInstance): { pageCache: boolean; observeQueries: boolean } {
  const pageCache = (app as unknown as Optional).pageCache;
  // "First read after an owner edit", on demand: the page cache of that shop is dropped first.
  app.addHook('onRequest', async (request) => {
    const shopId = request.headers['x-bench-invalidate'];
    if (typeof shopId === 'string' && pageCache) await pageCache.invalidate(Number(shopId));
  });

  app.get('/hello', { config: { rateLimit: false } }, async () => ({ hello: 'world' }));

  app.get(
    '/__bench/static/:bytes',
    { config: { rateLimit: false }, schema: { params: Type.Object({ bytes: Bytes }), hide: true } },
    async (request, reply) =>
      reply.type('application/json; charset=utf-8').send(staticJson((request.params as { bytes: number }).bytes)),
  );

  // The same bytes as a page, served as a static answer: the load generator decodes every body
  // as UTF-8 (autocannon appends each chunk to a string), and a body with non-ASCII characters
  // (the seeded descriptions have dashes) costs it about three times an all-ASCII one. A baseline
  // of `x`s would measure the client, not the server; a copy of the page costs both sides alike.
  // `headers=page` adds the page's own response headers (RateLimit-*, ETag, Cache-Control): the
  // same bytes on the wire, to tell what the client pays for reading them from server work.
  const copies = new Map<string, { type: string; body: Buffer; headers: Record<string, string> }>();
  const pageHeaders = /^(ratelimit-|etag$|cache-control$)/;
  app.get(
    '/__bench/copy',
    {
      config: { rateLimit: false },
      schema: {
        querystring: Type.Object({
          of: Type.String({ pattern: '^/(v2/public|s)/' }),
          headers: Type.Optional(Type.Literal('page')),
        }),
        hide: true,
      },
    },
    async (request, reply) => {
      const { of, headers } = request.query as { of: string; headers?: 'page' };
      let copy = copies.get(of);
      if (!copy) {
        const page = await app.inject({ url: of });
        if (page.statusCode !== 200) return reply.code(502).send({ error: `${of} answered ${page.statusCode}` });
        const kept = Object.entries(page.headers).filter(([name]) => pageHeaders.test(name));
        copy = {
          type: String(page.headers['content-type']),
          body: page.rawPayload,
          headers: Object.fromEntries(kept.map(([name, value]) => [name, String(value)])),
        };
        copies.set(of, copy);
      }
      if (headers === 'page') void reply.headers(copy.headers);
      return reply.type(copy.type).send(copy.body);
    },
  );

  // T12's floor: the stored bytes of an uploaded file served by @fastify/static from the disk
  // store's own directory (DATA_DIR/files/<key>), and where a file id is stored.
  void app.register(fastifyStatic, {
    root: resolve(app.config.dataDir, 'files'),
    prefix: '/__bench/files/',
    decorateReply: false,
    serve: true,
    allowedPath: (path) => !path.startsWith('/.'),
  });
  app.get(
    '/__bench/file-key/:id',
    { config: { rateLimit: false }, schema: { params: Type.Object({ id: Type.String() }), hide: true } },
    async (request, reply) => {
      const row = await app.db.kysely
        .selectFrom('files')
        .select(['storage', 'storage_key'])
        .where('id', '=', (request.params as { id: string }).id)
        .executeTakeFirst();
      return row ? { storage: row.storage, key: row.storage_key } : reply.code(404).send({ error: 'no such file' });
    },
  );

  // The public checkout's own body schema, so the baseline pays for the same validation.
  app.post(
    '/__bench/checkout',
    {
      config: { rateLimit: false },
      schema: { body: CheckoutBody, querystring: Type.Object({ bytes: Type.Optional(Bytes) }), hide: true },
    },
    async (request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(staticJson((request.query as { bytes?: number }).bytes ?? 1024)),
  );

  // The longest synchronous database call and the longest event-loop stall since the last reset.
  // A call's wall time also holds what was not SQLite's work: a garbage collection that ran inside
  // it, and time the thread waited for a core while the load generator ran (two cores, one
  // machine). Calls over 2 ms are kept with their window and both are taken out of them:
  // - collections: gc entries, on performance.now()'s clock;
  // - waits (Linux): the thread's run-queue wait (schedstat's second field), read after every
  //   call (about a microsecond, but one system call per statement: T8's /health lost a tenth,
  //   so it is read only between a `reset?waits=1` and the next reset, i.e. during T7's rounds).
  //   The wait since the previous call ended, less the time between that end and this call's
  //   start, is a lower bound of the wait inside the call.
  // `ownMs` is what remains: an upper bound of the database's own time on the event loop.
  const noStats = () => ({
    count: 0,
    requestCount: 0,
    totalMs: 0,
    maxMs: 0,
    maxSql: '',
    over2ms: 0,
    longestUpTo2: { ms: 0, sql: '' },
  });
  const stats = noStats();
  // Which statements a request made (T11's reads per poll), apart from the background jobs'
  // (expiry, outboxes, sweeps) that run meanwhile: each request runs inside this storage, as
  // @fastify/request-context does it, and a statement counts for the request it was made in.
  // Only between a `reset?requests=1` and the next reset: a storage in use turns on Node's
  // promise hooks for every request, which cost the fast routes a third of their throughput
  // (T1's 304s 1.47× → 0.68× of /hello in the run that had it always on).
  const inRequest = new AsyncLocalStorage<true>();
  let attributing = false;
  app.addHook('onRequest', (_request, _reply, done) => (attributing ? inRequest.run(true, done) : done()));
  let slow: { start: number; end: number; sql: string; waitedMs: number }[] = [];
  let collections: { start: number; end: number }[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      collections.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    if (collections.length > 10_000) collections = collections.slice(-5_000);
  });
  gc.observe({ entryTypes: ['gc'] });
  app.addHook('onClose', async () => gc.disconnect());
  const gcWithin = (call: { start: number; end: number }) =>
    collections.reduce((sum, c) => sum + Math.max(0, Math.min(c.end, call.end) - Math.max(c.start, call.start)), 0);
  const schedstat = (() => {
    try {
      return openSync('/proc/thread-self/schedstat', 'r');
    } catch {
      return undefined;
    }
  })();
  const buffer = Buffer.alloc(128);
  let readWaits = false;
  const runQueueWaitMs = () =>
    schedstat === undefined || !readWaits
      ? 0
      : Number(buffer.toString('latin1', 0, readSync(schedstat, buffer, 0, 128, 0)).split(' ')[1]) / 1e6;
  let previous = { end: performance.now(), waited: runQueueWaitMs() };
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const observe = (app.db as unknown as OptionalDb).observeQueries;
  if (typeof observe === 'function') {
    observe.call(app.db, (event) => {
      const end = performance.now();
      const waited = runQueueWaitMs();
      stats.count++;
      if (inRequest.getStore()) stats.requestCount++;
      stats.totalMs += event.durationMs;
      if (event.durationMs > 2) {
        stats.over2ms++;
        const start = end - event.durationMs;
        const waitedBetween = start - previous.end;
        if (slow.length < 100)
          slow.push({
            start,
            end,
            sql: event.sql.slice(0, 300),
            waitedMs: Math.max(0, waited - previous.waited - Math.max(0, waitedBetween)),
          });
      } else if (event.durationMs > stats.longestUpTo2.ms) {
        stats.longestUpTo2 = { ms: event.durationMs, sql: event.sql.slice(0, 300) };
      }
      previous = { end, waited };
      if (event.durationMs > stats.maxMs) {
        stats.maxMs = event.durationMs;
        stats.maxSql = event.sql.slice(0, 300);
      }
    });
  }
  const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
  app.get('/__bench/query-stats', { config: { rateLimit: false }, schema: { hide: true } }, async () => {
    const slowCalls = slow.map((call) => {
      const ms = call.end - call.start;
      const gcMs = Math.min(ms, gcWithin(call));
      const waitedMs = Math.min(ms - gcMs, call.waitedMs);
      return {
        ms: round3(ms),
        gcMs: round3(gcMs),
        waitedMs: round3(waitedMs),
        ownMs: round3(ms - gcMs - waitedMs),
        sql: call.sql,
      };
    });
    return {
      engine,
      observing: typeof observe === 'function',
      measuresWaits: schedstat !== undefined && readWaits,
      queries: stats.count,
      requestQueries: stats.requestCount,
      totalMs: round3(stats.totalMs),
      maxMs: round3(stats.maxMs),
      maxSql: stats.maxSql,
      over2ms: stats.over2ms,
      longestUpTo2: { ms: round3(stats.longestUpTo2.ms), sql: stats.longestUpTo2.sql },
      slowCalls,
      eventLoopDelay: { maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, meanMs: loop.mean / 1e6 },
      gcMaxMs: round3(collections.reduce((max, c) => Math.max(max, c.end - c.start), 0)),
    };
  });
  app.post('/__bench/query-stats/reset', { config: { rateLimit: false }, schema: { hide: true } }, async (request) => {
    const query = request.query as { waits?: string; requests?: string };
    readWaits = query.waits === '1';
    attributing = query.requests === '1';
    if (!attributing) inRequest.disable();
    previous = { end: performance.now(), waited: runQueueWaitMs() };
    Object.assign(stats, noStats());
    slow = [];
    collections = [];
    loop.reset();
    return { reset: true };
  });
  return { pageCache: pageCache !== undefined, observeQueries: typeof observe === 'function' };
}

async function main(): Promise<void> {
  if (engine === 'postgres') await ensurePgDatabase(false);
  const config = loadConfig(serverEnv(engine));
  const app = await buildApp({ config });
  // Checkouts of earlier runs left pending invoices: expire the overdue ones now rather than
  // have the expiry worker do it in the middle of a measurement.
  const expired = await expireOverdue(app.ctx);
  if (expired > 0) app.log.warn(`bench: expired ${expired} overdue invoices left by earlier runs`);
  const features = addBenchRoutes(app);
  addMailBenchRoutes(app);
  const migrations = await appliedMigrations(app.db.kysely);
  app.get('/__bench/info', { config: { rateLimit: false }, schema: { hide: true } }, async () => ({
    engine,
    ...features,
    migrations,
  }));
  const shutdown = () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`BENCH_SERVER_READY ${JSON.stringify({ port, engine, ...features })}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

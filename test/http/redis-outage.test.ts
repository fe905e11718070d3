import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { PageCache } from '../../src/modules/storefront/page-cache.js';
import { type Client, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { metricSum } from '../helpers/instances.js';
import { selectsDuring } from '../helpers/queries.js';
import { type OwnRedis, ownRedisServer } from '../helpers/redis.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * Issue 33 item 2: Redis is an accelerator, not a dependency of correctness. Each test starts a
 * redis-server of its own, kills it under requests and starts it again on the same port. Every
 * wait is for an event of the code under test (a connection's status, a log line, a key's
 * value), never a pause.
 */

const METRICS_TOKEN = 'metrics-token-0123456789-abcdef';
const DAY_MS = String(24 * 60 * 60 * 1000);

/** Runs one command on a short-lived client of its own (the apps' clients are under test). */
async function onRedis<T>(url: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

const redisDown = (app: FastifyInstance) => app.redis!.status !== 'ready';
const redisReady = (app: FastifyInstance) => app.redis!.status === 'ready';

async function killRedis(redis: OwnRedis, apps: FastifyInstance[]) {
  await redis.stop();
  await waitUntil(() => apps.every(redisDown), 'every app to see Redis gone');
}

async function restartRedis(redis: OwnRedis, apps: FastifyInstance[]) {
  await redis.start();
  await waitUntil(() => apps.every(redisReady), 'every app to reconnect to Redis');
}

interface LogLine {
  level: number;
  msg: string;
}

/** Two apps on one database and one Redis, as two instances behind a load balancer; A logs into `lines`. */
async function twoInstances(t: TestContext, redis: OwnRedis) {
  const config = await freshConfig(t, {
    REDIS_URL: redis.url,
    METRICS_TOKEN,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PUBLIC_MAX: '5',
    RATE_LIMIT_OWNER_MAX: '1000',
    RATE_LIMIT_AUTH_FAILURES_MAX: '3',
    // A window far longer than the test: no count starts over while it counts.
    RATE_LIMIT_WINDOW_MS: String(60 * 60_000),
    // No expiry pass of its own runs a select while the test counts them.
    INVOICE_EXPIRY_INTERVAL_MS: DAY_MS,
  });
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const a = await buildApp({ config, logger: { stream } });
  onEnd(t, () => a.close());
  const b = await buildApp({ config, logger: false });
  onEnd(t, () => b.close());
  return { a, b, lines, prefix: config.redisKeyPrefix };
}

async function metricsOf(app: FastifyInstance): Promise<string> {
  const res = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

const fallbacks = async (app: FastifyInstance, use: string) =>
  metricSum(await metricsOf(app), 'shopd_redis_fallbacks_total', { use });

let addresses = 0;
/** Every buyer comes from an address of its own: public requests are limited per address. */
const newAddress = () => {
  addresses++;
  return `198.18.${addresses >> 8}.${addresses & 255}`;
};

/** The requests of the measure: a checkout, storefront pages (JSON and HTML), an owner list. */
async function usualRequests(
  app: FastifyInstance,
  api: Client,
  shop: Awaited<ReturnType<typeof sellingShop>> & { subdomain: string },
) {
  const remoteAddress = newAddress();
  const checkout = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shop.shopId}/invoices`,
    remoteAddress,
    payload: {
      customerEmail: 'buyer@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
    },
  });
  const page = await app.inject({ method: 'GET', url: `/v2/public/shops/${shop.shopId}/main`, remoteAddress });
  const html = await app.inject({ method: 'GET', url: `/s/${shop.subdomain}/`, remoteAddress });
  // The owner's lists, through the owner API of this very instance.
  const headers = { authorization: `Bearer ${api.key}` };
  const invoices = await app.inject({ method: 'GET', url: `/self/${shop.shopId}/invoices`, headers });
  const products = await app.inject({ method: 'GET', url: `/self/${shop.shopId}/v2/products`, headers });
  return {
    statuses: [checkout, page, html, invoices, products].map((r) => r.statusCode),
    page: page.body,
    html: html.body,
  };
}

test('Redis killed and restarted under requests: nothing fails, limits fall back to memory, counted and logged once', async (t) => {
  const redis = await ownRedisServer(t);
  const { a, b, lines } = await twoInstances(t, redis);
  const api = await owner(a);
  const created = await sellingShop(api);
  const listed = assertOk(await api.get('/self/shops')) as { id: number; subdomain: string }[];
  const subdomain = listed.find((s) => s.id === created.shopId)!.subdomain;
  const shop = { ...created, subdomain };
  const outageWarnings = () => lines.filter((l) => l.level === 40 && /^Redis does not answer/.test(l.msg));
  const backInfos = () => lines.filter((l) => l.level === 30 && /^Redis answers again/.test(l.msg));

  const before = await usualRequests(a, api, shop);
  assert.deepEqual(before.statuses, [200, 200, 200, 200, 200], 'with Redis');
  assert.equal(metricSum(await metricsOf(a), 'shopd_redis_up'), 1);
  assert.equal(await fallbacks(a, 'rate_limit'), 0, 'counted in Redis');

  let attempts = 0;
  a.redis!.on('reconnecting', () => attempts++);
  await killRedis(redis, [a, b]);

  for (const app of [a, b]) {
    const during = await usualRequests(app, api, shop);
    assert.deepEqual(during.statuses, [200, 200, 200, 200, 200], 'without Redis: not one 5xx');
  }
  // The page cache is bypassed: every read is computed, none served from memory.
  const url = `/v2/public/shops/${shop.shopId}/main`;
  const remoteAddress = newAddress();
  const read = () => a.inject({ method: 'GET', url, remoteAddress });
  assert.equal((await read()).statusCode, 200);
  assert.ok((await selectsDuring(a, read)) > 0, 'computed again, not served from the cache');
  // An edit is answered, and shown at once by both instances.
  assertOk(await api.post(`/self/${shop.shopId}/announcements`, { title: 'Edited During The Outage' }));
  for (const app of [a, b]) {
    const page = await app.inject({ method: 'GET', url, remoteAddress: newAddress() });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Edited During The Outage/);
  }

  // The public limit (5 per address) still limits, counted in this instance's memory.
  const limitedAddress = newAddress();
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++)
    statuses.push((await a.inject({ method: 'GET', url, remoteAddress: limitedAddress })).statusCode);
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
  // So do failed authentications (3 per address), and a valid key still works from there.
  const guess = (n: number) =>
    a.inject({
      method: 'GET',
      url: '/self/shops',
      remoteAddress: '203.0.113.33',
      headers: { authorization: `Bearer shopd_${String(n).padStart(43, 'x')}` },
    });
  const guesses: number[] = [];
  for (let i = 0; i < 5; i++) guesses.push((await guess(i)).statusCode);
  assert.deepEqual(guesses, [401, 401, 401, 429, 429]);
  const real = await a.inject({
    method: 'GET',
    url: '/self/shops',
    remoteAddress: '203.0.113.33',
    headers: { authorization: `Bearer ${api.key}` },
  });
  assert.equal(real.statusCode, 200);
  // Real-time visits live in Redis alone: their read says so (503), views are not recorded.
  await a.visitRecorder.flush();
  const visits = await a.inject({
    method: 'GET',
    url: `/self/${shop.shopId}/analytics/visits/real-time`,
    headers: { authorization: `Bearer ${api.key}` },
  });
  assertError({ status: visits.statusCode, body: visits.json() }, 503, 'service_unavailable');

  const text = await metricsOf(a);
  assert.equal(metricSum(text, 'shopd_redis_up'), 0);
  for (const use of ['rate_limit', 'auth_limits', 'page_cache', 'visits'])
    assert.ok(metricSum(text, 'shopd_redis_fallbacks_total', { use }) > 0, `${use} fell back`);

  // Logged once, however many reconnection attempts and requests: a warning naming what falls back.
  await waitUntil(() => attempts >= 3, 'three reconnection attempts');
  assert.equal(outageWarnings().length, 1, JSON.stringify(outageWarnings()));
  assert.match(outageWarnings()[0]!.msg, /rate limits/);
  assert.match(outageWarnings()[0]!.msg, /page cache/);
  assert.equal(backInfos().length, 0);

  await restartRedis(redis, [a, b]);
  assert.equal(backInfos().length, 1, 'one info line when Redis answers again');
  assert.equal(outageWarnings().length, 1);
  assert.equal(metricSum(await metricsOf(a), 'shopd_redis_up'), 1);
  const after = await usualRequests(a, api, shop);
  assert.deepEqual(after.statuses, [200, 200, 200, 200, 200]);
  assert.match(after.page, /Edited During The Outage/);
  // Counted in Redis again: no request falls back any more.
  const fellBack = await fallbacks(a, 'rate_limit');
  assert.equal((await a.inject({ method: 'GET', url, remoteAddress: newAddress() })).statusCode, 200);
  assert.equal(await fallbacks(a, 'rate_limit'), fellBack);
});

test('after Redis restarts, no instance serves a page cached before the outage, and edits cross instances again', async (t) => {
  const redis = await ownRedisServer(t);
  const { a, b, prefix } = await twoInstances(t, redis);
  const api = await owner(a);
  const shop = await sellingShop(api);
  const url = `/v2/public/shops/${shop.shopId}/main`;
  const fromB = async () => (await b.inject({ method: 'GET', url, remoteAddress: newAddress() })).body;

  // Both apps run in this process, which also invalidates every cache of it on an edit
  // (page-cache.ts, `shopContentChanged`): here B's own pages stay put, and only what goes
  // through Redis reaches them. Two caches that are not registered, on the apps' own clients.
  const cacheA = new PageCache({ maxBytes: 1_000_000, redis: { client: a.redis!, prefix } });
  const cacheB = new PageCache({ maxBytes: 1_000_000, redis: { client: b.redis!, prefix } });
  const versionKey = `${prefix}pages:{${shop.shopId}}:version`;
  // B stores a page under version 1 of the shop.
  await onRedis(redis.url, (r) => r.set(versionKey, '1'));
  const version = await cacheB.version(shop.shopId);
  assert.ok(version !== null);
  const stored = { body: Buffer.from('before the outage'), contentType: 'text/plain', cacheControl: 'public' };
  cacheB.set(shop.shopId, '/main', version, { ...stored, passwordHash: null });
  assert.equal((await cacheB.get(shop.shopId, '/main'))?.body.toString(), 'before the outage');

  await killRedis(redis, [a, b]);
  // A changes the shop while Redis cannot be told: no error, and nothing is served from memory.
  await cacheA.invalidate(shop.shopId);
  assert.equal(await cacheB.version(shop.shopId), null);
  assert.equal(await cacheB.get(shop.shopId, '/main'), undefined, 'the cache is bypassed');

  // Redis comes back empty. A writes the change it could not: the shop's version is bumped,
  // to 1, the very number B's page was stored under before the outage.
  await restartRedis(redis, [a, b]);
  await waitUntil(async () => (await onRedis(redis.url, (r) => r.get(versionKey))) === '1', 'A to announce its change');
  assert.equal(await cacheB.get(shop.shopId, '/main'), undefined, 'B cannot vouch for a page of before the outage');
  assert.equal(cacheB.size.bytes, 0, 'and dropped them all');

  // Invalidation crosses instances again: B stores, A changes the shop, B's page is gone.
  const now = await cacheB.version(shop.shopId);
  assert.ok(now !== null);
  cacheB.set(shop.shopId, '/main', now, { ...stored, body: Buffer.from('after'), passwordHash: null });
  assert.equal((await cacheB.get(shop.shopId, '/main'))?.body.toString(), 'after');
  await cacheA.invalidate(shop.shopId);
  assert.equal(await cacheB.get(shop.shopId, '/main'), undefined);

  // And through the apps: B caches the page, an edit through A is seen by B at once.
  assert.match(await fromB(), /Game Key/);
  assert.equal(await selectsDuring(b, fromB), 0, 'cached on B');
  assertOk(await api.post(`/self/${shop.shopId}/announcements`, { title: 'Edited After The Restart' }));
  assert.match(await fromB(), /Edited After The Restart/);
});

import assert from 'node:assert/strict';
import { createServer, type Server, Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { build, engine, onEnd } from '../helpers/build.js';
import { assertError } from '../helpers/factories.js';
import { freePort, redisAvailable, testRedisUrl } from '../helpers/redis.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * Issue 24 item 4: `GET /ready`, the database answers. Redis (when configured) is reported, not
 * required: an instance without it still serves (issue 33, test/http/redis-outage.test.ts).
 */

async function ready(app: FastifyInstance) {
  const res = await app.inject({ method: 'GET', url: '/ready' });
  return { status: res.statusCode, body: res.json() };
}

const readyBody = (redis: 'ok' | 'down' | 'not_configured') => ({
  data: { status: 'ready', database: 'ok', redis },
  message: 'OK',
  errors: [],
  code: 'ok',
});

const listening = (server: Server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

/**
 * A TCP proxy to the test Redis that can be stalled: while stalled it holds what the client sends
 * (the connection stays open, so ioredis keeps it as `ready`) and passes it on when resumed.
 */
async function stallableRedis(t: TestContext) {
  const target = new URL(testRedisUrl);
  const sockets = new Set<Socket>();
  let stalled = false;
  const held: (() => void)[] = [];
  const server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    upstream.connect(Number(target.port || 6379), target.hostname);
    client.on('data', (chunk: Buffer) => {
      if (stalled) held.push(() => upstream.write(chunk));
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await listening(server);
  const resume = () => {
    stalled = false;
    for (const send of held.splice(0)) send();
  };
  // After the app closed (registered before it was built).
  onEnd(
    t,
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    stall: () => {
      stalled = true;
    },
    resume,
  };
}

test('ready without Redis configured: the database answers, Redis is not_configured', async (t) => {
  const app = await build(t);
  const res = await ready(app);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, readyBody('not_configured'));
});

test('ready with Redis: both answer', async (t) => {
  if (!(await redisAvailable())) return t.skip(`no Redis at ${testRedisUrl}`);
  const app = await build(t, { REDIS_URL: testRedisUrl });
  // The connection is made in the background from the start; /ready says 503 until it is up.
  await waitUntil(() => app.redis?.status === 'ready', 'the Redis connection');
  const res = await ready(app);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, readyBody('ok'));
});

test('ready stays 200 reporting Redis down when nothing listens at REDIS_URL; health is unaffected', async (t) => {
  const app = await build(t, { REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  const res = await ready(app);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, readyBody('down'));
  const health = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json().data, { status: 'ok', database: 'ok' });
});

test('ready reports Redis down, still 200, when a connected Redis stops answering PING; ok again once it answers', async (t) => {
  if (!(await redisAvailable())) return t.skip(`no Redis at ${testRedisUrl}`);
  const proxy = await stallableRedis(t);
  // The tests' default probe timeout is a minute (test/helpers/build.ts): this one waits 2 s.
  const app = await build(t, { REDIS_URL: proxy.url, PROBE_TIMEOUT_MS: '2000' });
  // Before the app closes: its QUIT must get through.
  onEnd(t, proxy.resume);
  await waitUntil(() => app.redis?.status === 'ready', 'the Redis connection');
  // Redis ok, once a PING made it back within the 2 s (a loaded machine may miss one).
  await waitUntil(async () => (await ready(app)).body.data?.redis === 'ok', 'Redis ok through the proxy');
  proxy.stall();
  // The PING is held: the probe gives up after its own timeout (2 s), whatever the machine.
  const stalled = await ready(app);
  assert.equal(stalled.status, 200, JSON.stringify(stalled.body));
  assert.deepEqual(stalled.body, readyBody('down'));
  assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  proxy.resume();
  await waitUntil(async () => (await ready(app)).body.data?.redis === 'ok', 'Redis ok again once it answers');
});

test('ready is a 503 naming the database when its connection is gone', async (t) => {
  const app = await build(t);
  await app.ready();
  await app.db.destroy();
  const res = await ready(app);
  assertError(res, 503, 'service_unavailable');
  assert.deepEqual(res.body.errors, ['database: does not answer']);
});

test('ready names the database alone when neither answers: Redis is not required', async (t) => {
  const app = await build(t, { REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  await app.ready();
  await app.db.destroy();
  const res = await ready(app);
  assertError(res, 503, 'service_unavailable');
  assert.deepEqual(res.body.errors, ['database: does not answer']);
});

test('PostgreSQL refusing connections: ready and health are 503 until it takes them again', async (t) => {
  if (engine !== 'postgres') return t.skip('PostgreSQL only');
  // No timer of the app's own may keep a connection busy: its pool empties after its idle timeout.
  const app = await build(t, { INVOICE_EXPIRY_INTERVAL_MS: String(24 * 60 * 60 * 1000) });
  assert.equal(app.config.database.dialect, 'postgres');
  const url = app.config.database.dialect === 'postgres' ? app.config.database.url : '';
  const name = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const allow = async (yes: boolean) => {
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(`alter database ${name} allow_connections ${yes}`);
    } finally {
      await client.end();
    }
  };
  assert.equal((await ready(app)).status, 200);
  await allow(false);
  onEnd(t, () => allow(true));
  // New connections are refused; the ones open close after the pool's idle timeout (10 s),
  // without an error (a connection the server ends while idle would be an error the pool emits).
  await waitUntil(() => app.db.poolStats()!.total === 0, 'the pool to close its idle connections');
  const res = await ready(app);
  assertError(res, 503, 'service_unavailable');
  assert.deepEqual(res.body.errors, ['database: does not answer']);
  assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 503);
  await allow(true);
  const again = await ready(app);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.deepEqual(again.body, readyBody('not_configured'));
});

test('ready and metrics are outside the rate limits', async (t) => {
  const token = 'metrics-token-0123456789-abcdef';
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '2', RATE_LIMIT_OWNER_MAX: '2', METRICS_TOKEN: token });
  const limited = async (url: string, headers: Record<string, string> = {}) => {
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await app.inject({ method: 'GET', url, headers })).statusCode);
    return codes;
  };
  // The limit is on: a public page is refused after two.
  assert.deepEqual(await limited('/v2/public/shops/999999/main'), [404, 404, 429, 429]);
  assert.deepEqual(await limited('/ready'), [200, 200, 200, 200]);
  assert.deepEqual(await limited('/metrics', { authorization: `Bearer ${token}` }), [200, 200, 200, 200]);
});

test('the OpenAPI document lists /ready and not /metrics', async (t) => {
  const app = await build(t, { METRICS_TOKEN: 'metrics-token-0123456789-abcdef' });
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/ready']?.get;
  assert.ok(op, '/ready is documented');
  assert.deepEqual(op.tags, ['System']);
  assert.ok(op.responses['200'] && op.responses['503'], 'its 200 and 503');
  assert.deepEqual(Object.keys(doc.paths['/ready']), ['get']);
  assert.ok(doc.paths['/health'], 'as /health is');
  assert.equal(doc.paths['/metrics'], undefined);
  assert.ok(!Object.keys(doc.paths).some((p) => p.includes('metrics')));
});

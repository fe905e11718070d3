import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk } from '../helpers/factories.js';
import { redisAvailable, testRedisUrl } from '../helpers/redis.js';

const redisUrl = testRedisUrl;

for (const store of ['memory', 'redis'] as const) {
  test(`owner paths are limited per API key (${store} store)`, async (t) => {
    if (store === 'redis' && !(await redisAvailable())) return t.skip(`no Redis at ${redisUrl}`);
    const env: Record<string, string> = { RATE_LIMIT_OWNER_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' };
    if (store === 'redis') env.REDIS_URL = redisUrl;
    const app = await build(t, env);
    const alice = await owner(app);
    const bob = await owner(app);
    for (let i = 0; i < 3; i++) {
      const res = await alice.get('/self/shops');
      assert.equal(res.status, 200);
      assert.equal(res.headers['ratelimit-limit'], '3');
      assert.equal(res.headers['ratelimit-remaining'], String(2 - i));
      assert.ok(res.headers['ratelimit-reset']);
    }
    const limited = await alice.get('/self/shops');
    assertError(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await bob.get('/self/shops')).status, 200, 'another key has its own budget');
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200, 'health is never limited');
  });
}

test('a maximum of 0 turns the limit off', async (t) => {
  const app = await build(t, { RATE_LIMIT_OWNER_MAX: '0', RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  for (let i = 0; i < 5; i++) assert.equal((await api.get('/self/shops')).status, 200);
  assert.equal((await api.get('/self/shops')).headers['ratelimit-limit'], undefined);
});

for (const store of ['memory', 'redis'] as const) {
  test(`unknown API keys are limited per client IP: 429 after the limit, other IPs unaffected (${store} store)`, async (t) => {
    if (store === 'redis' && !(await redisAvailable())) return t.skip(`no Redis at ${redisUrl}`);
    // A prefix of its own: the counters are per IP, and other tests use the same addresses.
    const env: Record<string, string> = {
      RATE_LIMIT_AUTH_FAILURES_MAX: '3',
      RATE_LIMIT_WINDOW_MS: '60000',
      REDIS_KEY_PREFIX: `t${process.pid}${Math.random().toString(36).slice(2, 8)}:`,
    };
    if (store === 'redis') env.REDIS_URL = redisUrl;
    const app = await build(t, env);
    const api = await owner(app);
    const from = async (ip: string, key?: string) => {
      const res = await app.inject({
        method: 'GET',
        url: '/self/shops',
        remoteAddress: ip,
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });
      return { status: res.statusCode, body: res.json(), headers: res.headers };
    };
    const guess = (n: number) => `shopd_${String(n).padStart(43, 'x')}`;

    for (let i = 0; i < 3; i++) assertError(await from('198.51.100.7', guess(i)), 401, 'unauthorized');
    const limited = await from('198.51.100.7', guess(3));
    assertError(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${limited.headers['retry-after']}`);
    assert.equal(limited.headers['ratelimit-remaining'], '0');
    for (let i = 4; i < 20; i++) assertError(await from('198.51.100.7', guess(i)), 429, 'rate_limited');
    // An owner behind the same address (a proxy, an office) is not locked out by the guesser.
    assert.equal((await from('198.51.100.7', api.key)).status, 200, 'a valid key works from the blocked address');
    // An IPv6 client is its /64: moving to another address of it gives no fresh budget.
    for (let i = 0; i < 3; i++) assertError(await from(`2001:db8:1:2::${i + 1}`, guess(i)), 401, 'unauthorized');
    assertError(await from('2001:db8:1:2:ffff::9', guess(3)), 429, 'rate_limited');
    assertError(await from('2001:db8:1:3::1', guess(4)), 401, 'unauthorized');

    assertError(await from('198.51.100.8', guess(99)), 401, 'unauthorized');
    assert.equal((await from('198.51.100.9', api.key)).status, 200, 'a valid key works from another address');
    for (let i = 0; i < 5; i++) assertError(await from('198.51.100.10'), 401, 'unauthorized');
    assert.equal((await from('198.51.100.10', api.key)).status, 200, 'a request without a key is not a guess');
    const shop = assertOk(await api.post('/self/shops', { name: 'Open Shop' }));
    const page = await app.inject({
      method: 'GET',
      url: `/v2/public/shops/${shop.id}/main`,
      remoteAddress: '198.51.100.7',
    });
    assert.equal(page.statusCode, 200, 'public pages need no key and stay open');
  });
}

test('RATE_LIMIT_AUTH_FAILURES_MAX=0 turns the failed-authentication limit off', async (t) => {
  const app = await build(t, { RATE_LIMIT_AUTH_FAILURES_MAX: '0' });
  for (let i = 0; i < 30; i++) {
    const res = await app.inject({
      method: 'GET',
      url: '/self/shops',
      headers: { authorization: `Bearer shopd_guess${i}` },
    });
    assert.equal(res.statusCode, 401);
  }
  assert.equal(loadConfig({}).rateLimit.authFailuresMax, 20, 'on by default');
});

test('public pages answered from the page cache are counted and limited like any other request', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
  const api = await owner(app);
  const shop = assertOk(await api.post('/self/shops', { name: 'Cached' }));
  const url = `/v2/public/shops/${shop.id}/main`;
  const get = () => app.inject({ method: 'GET', url, remoteAddress: '203.0.113.9' });
  const statements: string[] = [];
  const first = await get();
  assert.equal(first.statusCode, 200);
  assert.equal(first.headers['ratelimit-remaining'], '2');
  const stop = app.db.observeQueries((event) => statements.push(event.sql));
  for (const remaining of ['1', '0']) {
    const hit = await get();
    assert.equal(hit.statusCode, 200);
    assert.equal(hit.headers['ratelimit-remaining'], remaining, 'a hit carries the limit headers');
  }
  stop();
  assert.deepEqual(statements, [], 'the hits were served from memory, without the handler');
  assertError(
    await get().then((res) => ({ status: res.statusCode, body: res.json(), headers: res.headers })),
    429,
    'rate_limited',
  );
  assert.equal(app.pageCache.lookups.hits, 2);
});

test('public limits count an IPv6 client as its /64: 30 addresses of one /64 share one budget (issue 36, L2)', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000', TRUST_PROXY: 'true' });
  const api = await owner(app);
  const shop = assertOk(await api.post('/self/shops', { name: 'Six Four' }));
  const from = (address: string) =>
    app.inject({
      method: 'GET',
      url: `/v2/public/shops/${shop.id}/main`,
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': address },
    });
  const statuses: number[] = [];
  for (let i = 1; i <= 30; i++) statuses.push((await from(`2001:db8:36:2::${i.toString(16)}`)).statusCode);
  assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
  assert.deepEqual(new Set(statuses.slice(5)), new Set([429]), 'the 6th to 30th address of the /64 are refused');
  assert.equal((await from('2001:db8:36:3::1')).statusCode, 200, 'the next /64 is another client');
  assert.equal((await from('::ffff:198.51.100.36')).statusCode, 200);
  for (let i = 0; i < 4; i++) await from('198.51.100.36');
  assert.equal((await from('::ffff:198.51.100.36')).statusCode, 429, 'an IPv4-mapped address is its IPv4 address');
});

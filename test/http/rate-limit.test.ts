import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redisAvailable, testRedisUrl } from '../helpers/redis.js';
import { build, owner } from '../helpers/build.js';
import { assertError } from '../helpers/factories.js';

const redisUrl = testRedisUrl;

for (const store of ['memory', 'redis'] as const) {
  test(`owner paths are limited per API key (${store} store)`, async (t) => {
    if (store === 'redis' && !(await redisAvailable())) return t.skip('no Redis at ' + redisUrl);
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

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { pruneVisits } from '../../src/modules/analytics/repository.js';
import { recordVisit, VISIT_RETENTION_MS } from '../../src/modules/analytics/visits.js';
import { build, type Client, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { redisAvailable, testRedisUrl } from '../helpers/redis.js';

const redisUrl = testRedisUrl;

/** Every key this test wrote under its own prefix goes when it ends. */
async function cleanRedis(t: TestContext, prefix: string): Promise<void> {
  t.after(async () => {
    const redis = new Redis(redisUrl);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });
}

interface Visit {
  shopId: number;
  page: string;
  ip: string | null;
  userAgent: string | null;
  at: number;
}

const MIN = 60_000;
const T = Date.parse('2025-05-05T12:34:30.000Z');

/** Views around T: visitors at the edges of the 5-minute and 60-minute windows, and pages with distinct counts. */
function scenario(shopId: number, otherShopId: number): Visit[] {
  const v = (page: string, ip: string | null, userAgent: string | null, at: number, shop = shopId): Visit => ({
    shopId: shop,
    page,
    ip,
    userAgent,
    at,
  });
  const visits = [
    v('main', '203.0.113.1', 'UA-1', T - 10_000),
    // Three more views of the same page by the same visitor in the same minute: one stored row.
    v('main', '203.0.113.1', 'UA-1', T - 20_000),
    v('main', '203.0.113.1', 'UA-1', T - 5_000),
    v('main', '203.0.113.1', 'UA-1', T - 1_000),
    v('main', '203.0.113.1', 'UA-1', T - 2 * MIN),
    v('main', '203.0.113.2', 'UA-1', T - 4.5 * MIN), // 12:30:00, first minute of the active window
    v('main', '203.0.113.1', 'UA-2', T - 5 * MIN), // 12:29:30, just outside it
    v('feedbacks', null, null, T - 59 * MIN), // 11:35:30, first minute of the hour
    v('feedbacks', '198.51.100.9', 'UA-1', T - 61 * MIN), // 11:33:30, outside the hour
    v('main', '198.51.100.9', 'UA-1', T + 60_000), // the next minute: after `at`
    v('main', '198.51.100.10', 'UA-1', T - 3 * 60 * MIN), // long gone
    v('main', '203.0.113.99', 'UA-1', T - MIN, otherShopId),
  ];
  // Twelve pages with 1 … 12 views each, spread over the hour.
  for (let k = 1; k <= 12; k++) {
    for (let j = 0; j < k; j++)
      visits.push(v(`listings/p${String(k).padStart(2, '0')}`, `10.0.${k}.${j}`, 'bot', T - (k * 3 + j) * MIN));
  }
  return visits;
}

/** The figures, computed from the views themselves. */
function expectedAt(visits: Visit[], shopId: number, at: number) {
  const current = Math.floor(at / MIN);
  const mine = visits.filter((v) => v.shopId === shopId);
  const within = (v: Visit, minutes: number) => {
    const m = Math.floor(v.at / MIN);
    return m > current - minutes && m <= current;
  };
  const hour = mine.filter((v) => within(v, 60));
  const pages = new Map<string, number>();
  for (const v of hour) pages.set(v.page, (pages.get(v.page) ?? 0) + 1);
  return {
    at: new Date(at).toISOString(),
    activeVisitors: new Set(mine.filter((v) => within(v, 5)).map((v) => `${v.ip}|${v.userAgent}`)).size,
    visitsLastHour: hour.length,
    series: Array.from({ length: 30 }, (_, i) => {
      const minute = (current - 29 + i) * MIN;
      return {
        minute: new Date(minute).toISOString(),
        visits: mine.filter((v) => v.at >= minute && v.at < minute + MIN).length,
      };
    }),
    topPages: [...pages]
      .map(([page, count]) => ({ page, visits: count }))
      .sort((a, b) => b.visits - a.visits || (a.page < b.page ? -1 : 1))
      .slice(0, 10),
  };
}

/**
 * The real-time figures (a read stores this instance's buffered views first: recordVisit is
 * fire-and-forget, and the route flushes the buffer before it counts).
 */
const realTime = (api: Client, shopId: number, at?: number) => async () =>
  assertOk(
    await api.get(
      `/self/${shopId}/analytics/visits/real-time${at === undefined ? '' : `?at=${encodeURIComponent(new Date(at).toISOString())}`}`,
    ),
  );

const record = (app: FastifyInstance, visits: Visit[]) => {
  for (const { at, ...visit } of visits) recordVisit(app, visit, at);
};

for (const store of ['database', 'redis'] as const) {
  test(`real-time visits count views, visitors and pages in whole minutes (${store} store)`, async (t) => {
    const env: Record<string, string> = {};
    if (store === 'redis') {
      if (!(await redisAvailable())) return t.skip(`no Redis at ${redisUrl}`);
      env.REDIS_URL = redisUrl;
      env.REDIS_KEY_PREFIX = `shopd-test-${randomBytes(6).toString('hex')}:`;
      await cleanRedis(t, env.REDIS_KEY_PREFIX);
    }
    const clock = new TestClock();
    const app = await build(t, env, { clock });
    const api = await owner(app);
    const shop = await createShop(api, 'Visited');
    const other = await createShop(api, 'Elsewhere');
    const visits = scenario(shop.id, other.id);
    record(app, visits);

    const expected = expectedAt(visits, shop.id, T);
    // Hand checks of the hand computation: A, B and one page visitor at 12:31:30 are active.
    assert.equal(expected.activeVisitors, 3);
    assert.equal(expected.visitsLastHour, 8 + 78);
    assert.equal(expected.topPages[0]!.page, 'listings/p12');
    const body = await realTime(api, shop.id, T)();
    assert.equal(body.series.length, 30);
    assert.equal(body.series[29].minute, '2025-05-05T12:34:00.000Z');
    assert.equal(body.topPages.length, 10);
    assert.deepEqual(body, expected);

    // Ten minutes on, the window has moved.
    assert.deepEqual(await realTime(api, shop.id, T + 10 * MIN)(), expectedAt(visits, shop.id, T + 10 * MIN));
    // The other shop sees only its own view.
    assert.equal((await realTime(api, other.id, T)()).visitsLastHour, 1);

    // Now, by default (the app's clock): one fresh view.
    recordVisit(app, { shopId: other.id, page: 'main', ip: '192.0.2.1', userAgent: 'Now' });
    const now = await realTime(api, other.id)();
    assert.deepEqual([now.activeVisitors, now.visitsLastHour, now.topPages], [1, 1, [{ page: 'main', visits: 1 }]]);
    assert.equal(now.at, new Date(clock.now()).toISOString(), 'at the time of the read');

    assertError(await api.get(`/self/${shop.id}/analytics/visits/real-time?at=yesterday`), 400, 'validation_error');

    if (store === 'redis') {
      const redis = new Redis(redisUrl);
      t.after(() => redis.disconnect());
      const keys = await redis.keys(`${env.REDIS_KEY_PREFIX}visits:{${shop.id}}:*`);
      assert.ok(keys.length > 0);
      for (const key of keys.slice(0, 5)) {
        const ttl = await redis.ttl(key);
        assert.ok(ttl > 7000 && ttl <= 7320, `${key} expires in about two hours (${ttl} s)`);
      }
      // A second instance on the same Redis shares the counters (a fresh database: its shop 1 is ours).
      const second = await build(t, env);
      recordVisit(second, { shopId: shop.id, page: 'from-another-instance', ip: '192.0.2.50', userAgent: 'UA-1' }, T);
      // The second instance stores its buffer on its own timer; here, at once.
      await second.visitRecorder.flush();
      const shared = [
        ...visits,
        { shopId: shop.id, page: 'from-another-instance', ip: '192.0.2.50', userAgent: 'UA-1', at: T },
      ];
      assert.deepEqual(await realTime(api, shop.id, T)(), expectedAt(shared, shop.id, T));
    } else {
      // No raw IP is kept: a row holds the hash of shop, IP and user agent. Views of one page by
      // one visitor in one minute are one row with their count.
      const rows = await app.db.kysely.selectFrom('visits').selectAll().where('shop_id', '=', shop.id).execute();
      const own = visits.filter((v) => v.shopId === shop.id);
      assert.equal(
        rows.length,
        new Set(own.map((v) => `${Math.floor(v.at / MIN)} ${v.ip} ${v.userAgent} ${v.page}`)).size,
      );
      assert.equal(rows.length, own.length - 3);
      assert.equal(
        rows.reduce((sum, r) => sum + Number(r.views), 0),
        own.length,
      );
      const hash = createHash('sha256').update(`${shop.id}\n203.0.113.1\nUA-1`).digest('hex');
      assert.deepEqual(
        rows
          .filter((r) => r.visitor === hash)
          .map((r) => Number(r.views))
          .sort(),
        [1, 4],
      );
      assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.visitor) && !JSON.stringify(r).includes('203.0.113')));
    }
  });
}

test('old visit rows are pruned; recordVisit never throws', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const now = app.ctx.clock.now();
  recordVisit(app, { shopId: shop.id, page: 'main', ip: '192.0.2.1', userAgent: 'UA' }, now - 3 * 60 * MIN);
  recordVisit(app, { shopId: shop.id, page: 'main', ip: '192.0.2.1', userAgent: 'UA' }, now - 60 * MIN);
  const db = app.db.kysely;
  const count = async () =>
    (await db.selectFrom('visits').select('id').where('shop_id', '=', shop.id).execute()).length;
  await app.visitRecorder.flush();
  assert.equal(await count(), 2);
  assert.equal(await pruneVisits(db, now - VISIT_RETENTION_MS), 1);
  assert.equal(await count(), 1);

  // A store that fails (here: the database is gone) is logged, never thrown to the page.
  const closed = await build(t);
  await closed.close();
  assert.doesNotThrow(() => recordVisit(closed, { shopId: 1, page: 'main', ip: null, userAgent: null }));
  await assert.doesNotReject(closed.visitRecorder.flush(), 'storing the view fails, and is logged');
});

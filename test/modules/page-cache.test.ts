import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { buildApp } from '../../src/app.js';
import { expireOverdue } from '../../src/modules/orders/lifecycle.service.js';
import { PageCache } from '../../src/modules/storefront/page-cache.js';
import { build, type Client, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { selectsDuring } from '../helpers/queries.js';
import { redisAvailable, testRedisUrl } from '../helpers/redis.js';

function publicGet(app: FastifyInstance, shopId: number) {
  return async (path: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}${path}`, headers });
    return { status: res.statusCode, text: res.body, body: res.body ? res.json() : undefined, headers: res.headers };
  };
}

async function checkout(
  app: FastifyInstance,
  shopId: number,
  productId: number,
  variantId: number,
  email = 'buyer@example.com',
) {
  const res = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    payload: {
      customerEmail: email,
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: variantId, quantity: 1 }],
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.id as string;
}

const keysStock = (page: any, productId: number) =>
  page.listings.find((l: any) => l.product?.id === productId).product.stock as number;

async function shopWithStock(t: TestContext, env: Record<string, string> = {}) {
  // The expiry worker's timer would run a select of its own, counted by selectsDuring on a slow
  // run: a day between its passes keeps it out of these tests (expiry is run by hand below).
  const app = await build(t, { INVOICE_EXPIRY_INTERVAL_MS: String(24 * 60 * 60 * 1000), ...env });
  const api = await owner(app);
  const shop = await sellingShop(api, { serviceStock: 10 });
  return { app, api, ...shop, page: publicGet(app, shop.shopId) };
}

test('a page read twice is computed once: the second read runs no query and is the same answer', async (t) => {
  const { app, page } = await shopWithStock(t);
  const first = await page('/main');
  assert.equal(first.status, 200);
  let second: Awaited<ReturnType<typeof page>> | undefined;
  assert.equal(await selectsDuring(app, async () => (second = await page('/main'))), 0);
  assert.equal(second!.text, first.text);
  assert.equal(second!.headers.etag, first.headers.etag);
  assert.equal(second!.headers['cache-control'], first.headers['cache-control']);
  assert.match(String(second!.headers['content-type']), /^application\/json/);
  // Revalidation from the cache: 304, no body, no query.
  let revalidated: Awaited<ReturnType<typeof page>> | undefined;
  assert.equal(
    await selectsDuring(
      app,
      async () => (revalidated = await page('/main', { 'if-none-match': String(first.headers.etag) })),
    ),
    0,
  );
  assert.equal(revalidated!.status, 304);
  assert.equal(revalidated!.text, '');
  // The same page asked with its parameters in another order is the same entry.
  await page('/feedbacks?pageSize=5&pageNumber=1');
  assert.equal(await selectsDuring(app, () => page('/feedbacks?pageNumber=1&pageSize=5')), 0);
});

test('every write empties the shop pages before it is answered: owner edits, checkout, payment, feedback, expiry', async (t) => {
  const { app, api, page, shopId, productId, keysVariant } = await shopWithStock(t);
  const main = async () => {
    const res = await page('/main');
    assert.equal(res.status, 200);
    return res.body.data;
  };
  assert.equal(keysStock(await main(), productId), 15, 'five keys and ten support units');

  assertOk(await api.post(`/self/${shopId}/announcements`, { title: 'Big news' }));
  assert.deepEqual(
    (await main()).announcements.map((a: any) => a.title),
    ['Big news'],
    'owner edit visible at once',
  );

  const invoiceId = await checkout(app, shopId, productId, keysVariant);
  assert.equal(keysStock(await main(), productId), 14, 'a checkout reserves a key');

  assertOk(await api.post(`/self/${shopId}/invoices/${invoiceId}/process`));
  const paid = await main();
  assert.equal(paid.shop.statistics.totalProductsSold, 1, 'completion counts the sale');
  assert.equal(paid.shop.statistics.customersCount, 1);

  const rated = await app.inject({
    method: 'POST',
    url: `/v2/public/invoices/${invoiceId}/feedback`,
    payload: { rating: 5, comment: 'Great' },
  });
  assert.equal(rated.statusCode, 200, rated.body);
  assert.equal((await main()).shop.statistics.totalFeedbacks, 1, 'a public feedback shows at once');

  // An unpaid invoice that expires gives its key back, without any request to the shop.
  const unpaid = await checkout(app, shopId, productId, keysVariant, 'late@example.com');
  assert.equal(keysStock(await main(), productId), 13);
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', '=', unpaid)
    .execute();
  assert.equal(await expireOverdue(app.ctx), 1);
  assert.equal(keysStock(await main(), productId), 14, 'expiry returns the key to the page');

  // A failed write changes nothing and keeps the cached page.
  await main();
  assertError(await api.post(`/self/${shopId}/announcements`, { title: '' }), 400, 'validation_error');
  assert.equal(await selectsDuring(app, () => page('/main')), 0);
});

test('a cached page of a locked shop still needs the key; a request that would fail is never answered from the cache', async (t) => {
  const { api, page, shopId } = await shopWithStock(t);
  assert.equal((await page('/main')).status, 200, 'cached while the shop is open');
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'open sesame' }));
  assertError(await page('/main'), 403, 'shop_locked');
  assert.equal((await page('/main?key=open%20sesame')).status, 200);
  assert.equal((await page('/main?key=open%20sesame')).status, 200, 'from the cache');
  assertError(await page('/main'), 403, 'shop_locked');
  assertError(await page('/main?key=wrong'), 403, 'shop_locked');

  assert.equal((await page('/feedbacks?pageSize=10')).status, 403);
  assert.equal((await page('/feedbacks?pageSize=10&key=open%20sesame')).status, 200);
  assertError(await page('/feedbacks?pageSize=101&key=open%20sesame'), 400, 'validation_error');

  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: null }));
  assert.equal((await page('/main')).status, 200, 'removing the password opens the cached pages too');
});

test('requests that miss the same page at once compute it once', async (t) => {
  const { app, page, shopId } = await shopWithStock(t);
  await page('/main');
  await app.pageCache.invalidate(shopId);
  let listingReads = 0;
  const stop = app.db.observeQueries((e) => {
    if (/from "listings"/.test(e.sql)) listingReads++;
  });
  const answers = await Promise.all(Array.from({ length: 20 }, () => page('/main')));
  stop();
  assert.ok(answers.every((a) => a.status === 200 && a.text === answers[0]!.text));
  assert.equal(listingReads, 1);
});

test('PAGE_CACHE_MAX_BYTES=0 turns the cache off', async (t) => {
  const { app, page } = await shopWithStock(t, { PAGE_CACHE_MAX_BYTES: '0' });
  await page('/main');
  assert.ok((await selectsDuring(app, () => page('/main'))) > 0);
  assert.equal(app.pageCache.size.bytes, 0);
});

test('the cache keeps to its memory budget, drops pages of a changed shop and pages past their age', async () => {
  const cache = new PageCache({ maxBytes: 4000, maxAgeMs: 1000 });
  const page = (body: string) => ({
    body: Buffer.from(body),
    contentType: 'application/json',
    cacheControl: 'public',
    passwordHash: null,
  });
  const v1 = (await cache.version(1))!;
  cache.set(1, '/a', v1, page('x'.repeat(900)), 0);
  assert.equal((await cache.get(1, '/a', 10))?.body.length, 900);
  assert.equal(await cache.get(1, '/a', 2000), undefined, 'older than maxAgeMs');
  await cache.invalidate(1);
  assert.equal(await cache.get(1, '/a', 10), undefined, 'a new version');
  cache.set(1, '/a', v1, page('stale'), 10);
  assert.equal(await cache.get(1, '/a', 20), undefined, 'a page computed under the old version is never served');
  for (let shop = 2; shop <= 10; shop++) cache.set(shop, '/a', (await cache.version(shop))!, page('y'.repeat(900)), 0);
  assert.ok(cache.size.bytes <= 4000, `${cache.size.bytes} bytes kept`);
  assert.ok((await cache.get(10, '/a', 10)) !== undefined, 'the newest page stays');
  assert.equal(await cache.get(2, '/a', 10), undefined, 'the oldest went first');
});

test('requests waiting on a fill get the filled page, even after a later write moved the version on', async () => {
  const cache = new PageCache({ maxBytes: 100_000 });
  const v1 = (await cache.version(1))!;
  const first = cache.claimFill(1, '/main', v1);
  const second = cache.claimFill(1, '/main', v1);
  assert.ok('done' in first && 'wait' in second, 'one computes, the other waits');
  // A write lands while the page is computed: later requests read the new version and compute
  // their own page; the waiter, which read v1 before that write, gets the page of v1.
  await cache.invalidate(1);
  const v2 = (await cache.version(1))!;
  assert.ok('done' in cache.claimFill(1, '/main', v2), 'a request after the write does not wait on the older fill');
  const page = cache.set(1, '/main', v1, {
    body: Buffer.from('{"v":1}'),
    contentType: 'application/json',
    cacheControl: 'public',
    passwordHash: null,
  });
  first.done(page);
  assert.equal((await second.wait)?.etag, page.etag);
  assert.equal(await cache.get(1, '/main'), undefined, 'nobody else is served the page of v1');
  // A fill that fails hands nothing to its waiters: they compute the page themselves.
  const failing = cache.claimFill(2, '/main', '0');
  const waiting = cache.claimFill(2, '/main', '0');
  assert.ok('done' in failing && 'wait' in waiting);
  failing.done();
  assert.equal(await waiting.wait, undefined);
  // A claim is released once: its second release (an aborted request's, after its own answer)
  // leaves the claim a later request holds on the same page alone.
  const later = cache.claimFill(2, '/main', '0');
  assert.ok('done' in later);
  failing.done();
  const behindLater = cache.claimFill(2, '/main', '0');
  assert.ok('wait' in behindLater, 'the later claim still stands');
  later.done();
  assert.equal(await behindLater.wait, undefined);
});

test('with Redis, an edit through one instance is seen at once by another instance that cached the page', async (t) => {
  if (!(await redisAvailable())) return t.skip(`no Redis at ${testRedisUrl}`);
  const config = await freshConfig(t, {
    REDIS_URL: testRedisUrl,
    REDIS_KEY_PREFIX: `t${process.pid}${Math.random().toString(36).slice(2, 8)}:`,
  });
  const first = await buildApp({ config, logger: false });
  onEnd(t, () => first.close());
  const second = await buildApp({ config, logger: false });
  onEnd(t, () => second.close());
  const api: Client = await owner(first);
  const { shopId } = await sellingShop(api);
  const fromSecond = publicGet(second, shopId);
  assert.ok((await fromSecond('/main')).text.includes('Game Key'));
  assert.equal(await selectsDuring(second, () => fromSecond('/main')), 0, 'cached on the second instance');
  assertOk(await api.post(`/self/${shopId}/announcements`, { title: 'Edited Elsewhere' }));
  assert.ok((await fromSecond('/main')).text.includes('Edited Elsewhere'));
});

test('a client that leaves while its missed page is computed releases the requests waiting for that page', async (t) => {
  const app = await build(t, { INVOICE_EXPIRY_INTERVAL_MS: String(24 * 60 * 60 * 1000) });
  // A request marked `x-test-hold` waits before its handler until the test lets it go.
  let held: { request: FastifyRequest; release: () => void } | undefined;
  let arrived!: () => void;
  const holding = new Promise<void>((resolve) => (arrived = resolve));
  app.addHook('preHandler', async (request) => {
    if (request.headers['x-test-hold'] !== 'yes') return;
    await new Promise<void>((release) => {
      held = { request, release };
      arrived();
    });
  });
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const path = `/v2/public/shops/${shopId}/main`;
  const leaving = new AbortController();
  const first = fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}${path}`, {
    headers: { 'x-test-hold': 'yes' },
    signal: leaving.signal,
  }).catch(() => 'left');
  await holding;
  const version = (await app.pageCache.version(shopId))!;
  assert.ok('wait' in app.pageCache.claimFill(shopId, path, version), 'the held request computes the page');
  // (`once` would reject: the request also emits an `aborted` error.)
  const closed = new Promise((resolve) => held!.request.raw.once('close', resolve));
  leaving.abort();
  await closed;
  assert.equal(await first, 'left');
  const next = app.pageCache.claimFill(shopId, path, version);
  assert.ok('done' in next, 'its client left: the next request computes the page instead of waiting');
  next.done();
  held!.release();
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { openDatabase } from '../src/db/database.js';
import { createContext } from '../src/domain/context.js';
import { createApiKey } from '../src/modules/accounts/service.js';
import { type Client, engine, processEnv, type Reply } from './helpers/build.js';
import { assertError, assertOk, createShop, sellingShop } from './helpers/factories.js';
import { httpClient, metricSum, readMetrics, redisPrefix, startServers, webhookHooks } from './helpers/instances.js';
import { redisAvailable, testRedisUrl } from './helpers/redis.js';
import type { ServerProcess } from './helpers/server-process.js';
import { smtpSink } from './helpers/smtp-sink.js';
import { waitUntil } from './helpers/wait.js';

/**
 * Several instances on PostgreSQL (README, "Running several instances"; issue 24): two server
 * processes on one database and one Redis, as a deployment runs them behind a load balancer
 * (which the test plays: it spreads the requests and forwards each buyer's address). One pair of
 * servers serves every subtest; each subtest works in a shop of its own.
 */
test('two instances on one PostgreSQL database and one Redis', {
  skip: engine !== 'postgres' && 'several instances share a PostgreSQL database: PostgreSQL only',
}, async (t) => {
  if (!(await redisAvailable())) return t.skip(`no Redis at ${testRedisUrl}`);
  const { config, env: databaseEnv } = await processEnv(t);
  // The owner, made before the servers start (so neither makes a first owner of its own).
  const setup = openDatabase(config.database);
  const { key } = await createApiKey(createContext(setup.kysely, config), { email: 'owner@example.com' }).finally(() =>
    setup.destroy(),
  );
  const sink = await smtpSink(t);
  const hooks = await webhookHooks(t);
  const metricsToken = randomBytes(24).toString('hex');
  const publicMax = 10;
  const [a, b] = (await startServers(
    t,
    {
      ...databaseEnv,
      REDIS_URL: testRedisUrl,
      REDIS_KEY_PREFIX: redisPrefix(t),
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_PUBLIC_MAX: String(publicMax),
      // Owner requests are not under test here, and waiting on the attempts log polls the owner API.
      RATE_LIMIT_OWNER_MAX: '0',
      // A window far longer than the test: no count starts over while a subtest counts.
      RATE_LIMIT_WINDOW_MS: String(60 * 60_000),
      MAIL_WORKER_ENABLED: 'true',
      MAIL_WORKER_INTERVAL_MS: '50',
      SMTP_URL: sink.url,
      WEBHOOK_WORKER_ENABLED: 'true',
      WEBHOOK_WORKER_INTERVAL_MS: '50',
      ALLOW_PRIVATE_WEBHOOKS: 'true',
      METRICS_TOKEN: metricsToken,
      // Info: startServer waits for the start-up lines; errors are checked at the end.
      LOG_LEVEL: 'info',
    },
    2,
  )) as [ServerProcess, ServerProcess];
  const name = (server: ServerProcess) => (server === a ? 'A' : 'B');
  const owner = (server: ServerProcess): Client => httpClient(server.url, key);
  // Every buyer comes from an address of its own (forwarded by the trusted proxy): public
  // requests are limited per address, and only the rate-limit subtest means to reach the limit.
  // The proxy's address is the one trusted: each instance reads the client from X-Forwarded-For.
  let addresses = 0;
  const newAddress = () => {
    addresses++;
    return `198.18.${addresses >> 8}.${addresses & 255}`;
  };
  const visitor = (server: ServerProcess, address: string): Client =>
    httpClient(server.url, '', { 'x-forwarded-for': address });
  const buyer = (server: ServerProcess) => visitor(server, newAddress());
  const metrics = async (server: ServerProcess) => readMetrics(server.url, metricsToken);
  /** Checkouts by outcome, counted by each instance and added up. */
  const checkoutOutcomes = async () => {
    const texts = await Promise.all([a, b].map(metrics));
    const sum = (outcome: string) =>
      texts.reduce((total, text) => total + metricSum(text, 'shopd_checkouts_total', { outcome }), 0);
    return { placed: sum('placed'), outOfStock: sum('out_of_stock') };
  };
  const checkout = (server: ServerProcess, shopId: number, email: string, part: object) =>
    buyer(server).post(`/v2/public/shops/${shopId}/invoices`, {
      customerEmail: email,
      gateway: 'tipjar',
      parts: [{ ...part, quantity: 1 }],
    });

  await t.test('checkouts spread over both never oversell, and each key is delivered once', async () => {
    const serials = Array.from({ length: 5 }, (_, i) => `MULTI-KEY-${i}`);
    const shop = await sellingShop(owner(a), { serials, serviceStock: null });
    const keys = { productId: shop.productId, productVariantId: shop.keysVariant };
    const before = await checkoutOutcomes();
    const attempts = 14;
    const results = await Promise.all(
      Array.from({ length: attempts }, (_, n) =>
        checkout(n % 2 === 0 ? a : b, shop.shopId, `stock${n}@example.com`, keys),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, serials.length, `five keys sell five orders: ${statuses}`);
    for (const refused of results.filter((r) => r.status !== 200)) {
      assertError(refused, 422, 'unprocessable');
      assert.match(refused.body.errors.join('; '), /stock/);
    }
    const after = await checkoutOutcomes();
    assert.deepEqual(
      [after.placed - before.placed, after.outOfStock - before.outOfStock],
      [serials.length, attempts - serials.length],
      'the instances counted the same outcomes between them',
    );
    for (const server of [a, b]) {
      const product = assertOk(await owner(server).get(`/self/${shop.shopId}/v2/products/${shop.productId}`));
      assert.equal(product.variants[0].stock, 0, `no stock left, as server ${name(server)} sees it`);
    }

    // Each order is completed through both servers at once: one of them completes it.
    const invoiceIds: string[] = results.filter((r) => r.status === 200).map((r) => r.body.data.id);
    for (const id of invoiceIds) {
      const both = await Promise.all(
        [a, b].map((server) => owner(server).post(`/self/${shop.shopId}/invoices/${id}/process`)),
      );
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 409], `invoice ${id} completed once`);
    }
    const delivered: string[] = [];
    for (const [n, id] of invoiceIds.entries()) {
      const invoice = assertOk(await owner(n % 2 === 0 ? b : a).get(`/self/${shop.shopId}/invoices/${id}`));
      assert.equal(invoice.status, 'completed');
      delivered.push(...invoice.parts[0].deliverables);
    }
    assert.deepEqual(delivered.sort(), serials, 'every key delivered, none twice');
  });

  await t.test('orders spread over both: each event reaches the webhook once, each mail arrives once', async () => {
    const orders = 8;
    const serials = Array.from({ length: orders + 1 }, (_, i) => `EVENT-KEY-${i}`);
    const shop = await sellingShop(owner(a), { serials, serviceStock: null });
    const shopName = 'Selling Shop';
    const hook = assertOk(
      await owner(b).post(`/self/${shop.shopId}/webhooks`, {
        url: hooks.url,
        events: ['invoice.created', 'invoice.completed'],
      }),
    );
    const keys = { productId: shop.productId, productVariantId: shop.keysVariant };
    const emailOf = (n: number) => `events${n}@example.com`;
    const placeAndComplete = async (ns: number[]) => {
      const placed = await Promise.all(ns.map((n) => checkout(n % 2 === 0 ? a : b, shop.shopId, emailOf(n), keys)));
      const ids: string[] = placed.map((r) => assertOk(r).id);
      const completed = await Promise.all(
        ids.map((id, i) => owner(i % 2 === 0 ? b : a).post(`/self/${shop.shopId}/invoices/${id}/process`)),
      );
      return completed.map(
        (r) => assertOk(r) as { id: string; paymentCode: string; parts: { deliverables: string[] }[] },
      );
    };
    const invoices = await placeAndComplete(Array.from({ length: orders }, (_, n) => n));

    const hooksOfShop = () => hooks.received().filter((h) => h.body.shopId === shop.shopId);
    const mailOfShop = () => sink.received.filter((m) => /^events\d+@example\.com$/.test(m.to));
    const attemptLog = async () =>
      assertOk(await owner(a).get(`/self/${shop.shopId}/webhooks/${hook.id}/deliveries?pageSize=100`)).items as {
        deliveryId: number;
        eventId: string;
        attempt: number;
        statusCode: number | null;
      }[];
    // Until everything expected has arrived and both workers recorded their attempts…
    await waitUntil(() => hooksOfShop().length >= 2 * orders, `${2 * orders} webhooks`);
    await waitUntil(async () => (await attemptLog()).length >= 2 * orders, `${2 * orders} recorded attempts`);
    await waitUntil(() => mailOfShop().length >= 2 * orders, `${2 * orders} mails`);
    // …then one more order, whose events and mails come after all of those: by the time they
    // arrive, both workers have made further passes, which would have sent anything twice.
    invoices.push(...(await placeAndComplete([orders])));
    await waitUntil(() => hooksOfShop().length >= 2 * (orders + 1), 'the last order’s webhooks');
    await waitUntil(async () => (await attemptLog()).length >= 2 * (orders + 1), 'the last order’s attempts');
    await waitUntil(() => mailOfShop().length >= 2 * (orders + 1), 'the last order’s mails');
    // And nothing is left in flight: every delivery and mail is settled.
    await waitUntil(async () => {
      const text = await metrics(b);
      return (
        metricSum(text, 'shopd_outbox_backlog', { outbox: 'webhooks' }) === 0 &&
        metricSum(text, 'shopd_outbox_backlog', { outbox: 'mail' }) === 0
      );
    }, 'empty outboxes');

    const expectedEvents = invoices.flatMap((i) => [`invoice.created ${i.id}`, `invoice.completed ${i.id}`]).sort();
    const received = hooksOfShop();
    assert.deepEqual(received.map((h) => `${h.body.type} ${h.body.data.invoiceId}`).sort(), expectedEvents);
    assert.equal(new Set(received.map((h) => h.id)).size, received.length, 'every event id arrived once');
    assert.ok(
      received.every((h) => h.id === h.body.id),
      'the webhook-id header names the event',
    );
    for (const invoice of invoices) {
      const order = received.filter((h) => h.body.data.invoiceId === invoice.id).map((h) => h.body.type);
      assert.deepEqual(order, ['invoice.created', 'invoice.completed'], `one invoice's events in order: ${invoice.id}`);
    }
    const log = await attemptLog();
    assert.equal(log.length, received.length, 'one attempt per delivery');
    assert.equal(new Set(log.map((l) => l.deliveryId)).size, log.length);
    assert.ok(
      log.every((l) => l.attempt === 1 && l.statusCode === 200),
      JSON.stringify(log),
    );

    const mails = mailOfShop();
    const expectedMails = invoices
      .flatMap((invoice, n) => [
        `${emailOf(n)} | Your order ${invoice.paymentCode} from ${shopName}: how to pay`,
        `${emailOf(n)} | Your order ${invoice.paymentCode} from ${shopName}`,
      ])
      .sort();
    assert.deepEqual(mails.map((m) => `${m.to} | ${m.subject}`).sort(), expectedMails, 'each mail exactly once');
    for (const invoice of invoices) {
      const delivery = mails.find((m) => m.subject === `Your order ${invoice.paymentCode} from ${shopName}`)!;
      assert.ok(delivery.text.includes(invoice.parts[0]!.deliverables[0]!), 'the delivery mail holds the key');
    }
  });

  await t.test('rate limits are shared: a client’s requests count once over both instances', async () => {
    const shop = await createShop(owner(a), 'Limited Shop');
    // The storefront's home page: each instance serves it from its page cache after the first request.
    const page = `/s/${shop.subdomain}/`;
    // One client's requests alternate between the servers: its limit is reached on A, then
    // (another client) on B.
    for (const [first, second] of [
      [a, b],
      [b, a],
    ] as const) {
      const address = newAddress();
      const serverOf = (i: number) => (i % 2 === 0 ? first : second);
      const seen = { A: 0, B: 0 };
      for (let i = 0; i < publicMax; i++) {
        const res = await visitor(serverOf(i), address).get(page);
        seen[name(serverOf(i))]++;
        assert.equal(res.status, 200, `request ${i + 1}, on ${name(serverOf(i))}`);
        assert.equal(res.headers['ratelimit-remaining'], String(publicMax - i - 1), `request ${i + 1}`);
      }
      assert.ok(seen.A < publicMax && seen.B < publicMax, `each server alone saw fewer than the limit`);
      // The storefront answers a page saying so.
      const limited = (res: Reply, on: ServerProcess) => {
        assert.equal(res.status, 429, `the request over the limit, on ${name(on)}`);
        assert.ok(Number(res.headers['retry-after']) > 0);
        assert.match(String(res.body), /Rate limit exceeded/);
      };
      assert.equal(serverOf(publicMax), first);
      limited(await visitor(first, address).get(page), first);
      limited(await visitor(second, address).get(page), second);
      assert.equal((await visitor(second, newAddress()).get(page)).status, 200, 'another client is not limited');
    }
  });

  await t.test('an owner edit through one instance empties the page caches of both', async () => {
    const shop = await createShop(owner(a), 'Cached Shop');
    const variant = {
      title: 'Only',
      priceDetails: { amount: 3 },
      productType: 'service',
      asService: { text: 'Thanks' },
    };
    const product = assertOk(
      await owner(a).post(`/self/${shop.id}/v2/products`, {
        title: 'Lamp Before Edit',
        description: 'A lamp',
        variants: [variant],
      }),
    );
    // The product as buyers see it: its storefront page and its public JSON page.
    const pages = [
      `/s/${shop.subdomain}/products/${product.path}`,
      `/v2/public/shops/${shop.id}/listings/${product.path}`,
    ];
    const lookups = async (server: ServerProcess) => {
      const text = await metrics(server);
      return {
        hits: metricSum(text, 'shopd_page_cache_lookups_total', { result: 'hit' }),
        misses: metricSum(text, 'shopd_page_cache_lookups_total', { result: 'miss' }),
      };
    };
    /** The page from `server`, and whether that server's cache answered it (from its metrics). */
    const read = async (server: ServerProcess, page: string) => {
      const before = await lookups(server);
      const res = await buyer(server).get(page);
      const after = await lookups(server);
      assert.equal(res.status, 200, `${page} on ${name(server)}`);
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      return { text, hits: after.hits - before.hits, misses: after.misses - before.misses };
    };

    for (const server of [a, b]) {
      for (const page of pages) {
        const first = await read(server, page);
        assert.ok(first.text.includes('Lamp Before Edit'), `${page} on ${name(server)}`);
        assert.deepEqual([first.hits, first.misses], [0, 1], `${page}: computed on ${name(server)}`);
        const second = await read(server, page);
        assert.deepEqual([second.hits, second.misses], [1, 0], `${page}: from ${name(server)}'s cache`);
        assert.equal(second.text, first.text);
      }
    }
    assertOk(
      await owner(a).put(`/self/${shop.id}/v2/products/${product.id}`, {
        title: 'Lamp After Edit',
        description: 'A lamp',
        variants: [{ ...variant, id: product.variants[0].id }],
      }),
    );
    // At once, with no wait: the edit's answer left A only after the shared version moved on.
    for (const server of [b, a]) {
      for (const page of pages) {
        const fresh = await read(server, page);
        assert.ok(fresh.text.includes('Lamp After Edit'), `${page} on ${name(server)} shows the edit`);
        assert.ok(!fresh.text.includes('Lamp Before Edit'), `${page} on ${name(server)}`);
      }
    }
  });

  // Neither process logged an error (a failed worker pass, a 5xx, a deadlock) while the subtests ran.
  for (const server of [a, b]) {
    const errors = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50);
    assert.deepEqual(errors, [], `errors logged by ${name(server)}`);
  }
});

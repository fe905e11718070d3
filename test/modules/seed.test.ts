import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { client, onEnd, processEnv } from '../helpers/build.js';
import { cli } from '../helpers/cli.js';
import { assertOk } from '../helpers/factories.js';

const DAY = 86_400_000;

test('seed --demo fills a demo shop through the API, and a second run makes another shop', async (t) => {
  const { config, env } = await processEnv(t);
  const seeded = await cli(env, 'seed', '--demo');
  assert.equal(seeded.code, 0, seeded.stderr);
  if (seeded.stderr) t.diagnostic(seeded.stderr.trim());
  // The shop's limits against one client are lifted while the history is written (issue 36).
  assert.doesNotMatch(seeded.stderr, /was refused/);
  const key = seeded.stdout.trim().split('\n').at(-1)!;
  assert.match(key, /^shopd_[A-Za-z0-9_-]{43}$/, 'the last line is the key alone');
  assert.match(seeded.stdout, /Demo shop \d+ "Demo Shop"/);

  const app = await buildApp({ config, logger: false });
  onEnd(t, () => app.close());
  const api = client(app, key);

  // The printed admin link sets the demo account's password, which then signs in to the admin.
  const link = /Admin: .*set its password .*: (\S+)$/m.exec(seeded.stdout)?.[1];
  assert.ok(link, `the seed prints an admin link: ${seeded.stdout}`);
  const token = new URLSearchParams(new URL(link).hash.slice(1)).get('token');
  const setup = await app.inject({
    method: 'POST',
    url: '/self/password-setup',
    payload: { token, password: 'demo password 123' },
  });
  assert.equal(setup.statusCode, 200, setup.body);
  const signIn = await app.inject({
    method: 'POST',
    url: '/self/session',
    payload: { email: 'demo@localhost', password: 'demo password 123' },
  });
  assert.equal(signIn.statusCode, 200, signIn.body);

  const shops = assertOk(await api.get('/self/shops'));
  assert.equal(shops.length, 1);
  const shopId: number = shops[0].id;
  const self = `/self/${shopId}`;

  const settings = assertOk(await api.get(`${self}/settings`));
  assert.ok(JSON.stringify(settings.payments).includes('tipjar'));
  const products = assertOk(await api.get(`${self}/v2/products?pageSize=100`));
  assert.equal(products.totalCount, 7);
  const types = new Set(
    products.items.flatMap((p: { variants: { productType: string }[] }) => p.variants.map((v) => v.productType)),
  );
  assert.deepEqual([...types].sort(), ['dynamic', 'file', 'serials', 'service']);
  assert.equal(assertOk(await api.get(`${self}/groups`)).totalCount, 1);
  assert.ok(assertOk(await api.get(`${self}/categories`)).totalCount >= 1);
  assert.equal(assertOk(await api.get(`${self}/coupons`)).totalCount, 2);

  // Every invoice, to check the dashboards against the stored orders.
  const invoices: {
    status: string;
    total: number;
    createdAt: string;
    completedAt: string | null;
    parts: { productId: number }[];
  }[] = [];
  let cursor: string | null = null;
  do {
    const page = assertOk(
      await api.get(`${self}/invoices?pageSize=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
    );
    invoices.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  assert.ok(invoices.length >= 100, `about 140 orders, got ${invoices.length}`);
  const days = new Set(invoices.map((i) => i.createdAt.slice(0, 10)));
  assert.ok(days.size >= 50, `orders over about 60 days, got ${days.size}`);
  assert.ok(invoices.every((i) => Date.parse(i.createdAt) > Date.now() - 61 * DAY));
  const dynamic = products.items.find(
    (p: { variants: { productType: string }[] }) => p.variants[0]!.productType === 'dynamic',
  ).id;
  assert.ok(
    invoices.some((i) => i.parts[0]!.productId === dynamic),
    'dynamic products are ordered',
  );
  assert.ok(
    invoices.filter((i) => i.parts[0]!.productId === dynamic).every((i) => i.status !== 'completed'),
    '… but never delivered',
  );

  const fromDate = new Date(Date.now() - 59 * DAY).toISOString().slice(0, 10);
  const general = assertOk(await api.get(`${self}/dashboard/general?fromDate=${fromDate}`));
  const from = Date.parse(`${fromDate}T00:00:00.000Z`);
  const completed = invoices.filter((i) => i.status === 'completed' && Date.parse(i.completedAt!) >= from);
  assert.ok(completed.length > 50);
  assert.equal(general.completedOrders, completed.length);
  assert.equal(Math.round(general.revenue * 100), Math.round(completed.reduce((s, i) => s + i.total * 100, 0)));
  assert.equal(general.ordersCount, invoices.filter((i) => Date.parse(i.createdAt) >= from).length);
  assert.ok(general.productsSold >= completed.length);
  assert.ok(general.newCustomers > 10);
  assert.ok(general.averageOrderValue > 0);
  assert.equal(general.series.length, 60);
  assert.ok(general.series.filter((d: { orders: number }) => d.orders > 0).length >= 50);

  const advanced = assertOk(await api.get(`${self}/dashboard/advanced?fromDate=${fromDate}`));
  assert.deepEqual(advanced.revenueByGateway.map((g: { gateway: string }) => g.gateway).sort(), ['balance', 'tipjar']);
  assert.ok(advanced.topProducts.length >= 4);
  assert.ok(advanced.conversionRate > 0.5 && advanced.conversionRate < 1);
  assert.ok(advanced.returningCustomerRate > 0);
  assert.equal(
    advanced.ordersByHour.reduce((s: number, n: number) => s + n, 0),
    general.completedOrders,
  );
  assert.ok(advanced.refundsAndReplacements.count >= 1);
  if (!/feedbacks skipped/.test(seeded.stderr)) assert.ok(advanced.averageRating >= 1 && advanced.averageRating <= 5);
  const live = assertOk(await api.get(`${self}/analytics/visits/real-time`));
  assert.ok(live.visitsLastHour > 0, 'the seed browses the storefront');

  const again = await cli(env, 'seed', '--demo');
  assert.equal(again.code, 0, again.stderr);
  const secondKey = again.stdout.trim().split('\n').at(-1)!;
  assert.notEqual(secondKey, key);
  const both = assertOk(await client(app, secondKey).get('/self/shops'));
  assert.equal(both.length, 2, 'the same account, a second demo shop');
  assert.notEqual(both[0].subdomain, both[1].subdomain);
  assertOk(await api.get('/self/shops'));

  const usage = await cli(env, 'seed');
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /seed needs --demo/);
});

test("the demo's mail is dropped: a server's mail worker running beside the seed, and after it, sends none of it", async (t) => {
  const { config, env } = await processEnv(t);
  // The running server: its mail worker passes run back to back while the seed works.
  const server = await buildApp({ config, logger: false });
  onEnd(t, () => server.close());
  let seeding = true;
  const seed = cli(env, 'seed', '--demo').finally(() => (seeding = false));
  let sentDuringSeed = 0;
  while (seeding) {
    try {
      sentDuringSeed += await server.mailWorker.runOnce();
    } catch (err) {
      // The seed held SQLite's write lock past busy_timeout: this pass did not happen.
      if (!/SQLITE_BUSY|locked/i.test(String(err))) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const seeded = await seed;
  assert.equal(seeded.code, 0, seeded.stderr);
  assert.equal(sentDuringSeed, 0, 'no demo mail is sent while the seed runs');
  assert.equal(await server.mailWorker.runOnce(), 0, 'nor after it');

  const mail = await server.db.kysely.selectFrom('mail_outbox').select(['to_address', 'status', 'sent_at']).execute();
  assert.ok(mail.length >= 50, `the demo's orders wrote their delivery e-mails (${mail.length})`);
  assert.deepEqual([...new Set(mail.map((m) => m.status))], ['dropped']);
  assert.ok(mail.every((m) => m.to_address.endsWith('@demo.invalid') && m.sent_at === null));
  assert.ok(!existsSync(join(config.dataDir, 'mail')), 'no .eml file was written either');
});

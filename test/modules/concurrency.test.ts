import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { shareShop } from '../../src/modules/shops/index.js';
import { build, engine, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * Money and stock under concurrency, on whichever engine the suite runs: the same requests in
 * parallel must never oversell, deliver a serial twice, lose a balance update or go negative.
 */
test('parallel checkouts on a small stock never oversell, and completions never deliver a serial twice', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const serials = Array.from({ length: 20 }, (_, i) => `SERIAL-${i}`);
  const shop = await sellingShop(api, { serials, serviceStock: 15 });
  const buy = (variant: number, n: number) =>
    app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: {
        customerEmail: `buyer${n}@example.com`,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: variant, quantity: 2 }],
      },
    });
  const results = await Promise.all(Array.from({ length: 40 }, (_, n) => buy(shop.keysVariant, n)));
  const created = results.filter((r) => r.statusCode === 200).map((r) => r.json().data.id as string);
  const refused = results.filter((r) => r.statusCode === 422);
  assert.equal(created.length, 10, '20 serials, 2 per order');
  assert.equal(refused.length, 30);
  assert.ok(refused.every((r) => r.json().code === 'unprocessable'));

  const serviceResults = await Promise.all(Array.from({ length: 20 }, (_, n) => buy(shop.serviceVariant, 100 + n)));
  assert.equal(
    serviceResults.filter((r) => r.statusCode === 200).length,
    7,
    'a counted stock of 15 sells 7 orders of 2',
  );

  // Every invoice processed twice at once: each completes exactly once.
  const processed = await Promise.all(
    created.flatMap((id) => [1, 2].map(() => api.post(`/self/${shop.shopId}/invoices/${id}/process`))),
  );
  assert.equal(processed.filter((r) => r.status === 200).length, 10);
  assert.ok(processed.filter((r) => r.status !== 200).every((r) => r.status === 409));
  const delivered: string[] = [];
  for (const id of created)
    delivered.push(...assertOk(await api.get(`/self/${shop.shopId}/invoices/${id}`)).parts[0].deliverables);
  assert.equal(delivered.length, 20);
  assert.equal(new Set(delivered).size, 20, 'no serial delivered twice');
  assert.deepEqual([...delivered].sort(), [...serials].sort());
  const rows = await app.db.kysely.selectFrom('serials').select('status').where('shop_id', '=', shop.shopId).execute();
  assert.ok(rows.every((r) => r.status === 'delivered'));
});

test('parallel orders naming the same two variants in opposite orders all complete or are refused, never fail', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: Array.from({ length: 30 }, (_, i) => `PAIR-${i}`), serviceStock: 30 });
  const keys = { productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 };
  const service = { productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 };
  // Half name the serials first, half the counted stock first: taken in the order named, two such
  // transactions could each hold one variant and wait for the other's (a deadlock on PostgreSQL).
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, n) =>
      app.inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.shopId}/invoices`,
        payload: {
          customerEmail: `pair${n}@example.com`,
          gateway: 'tipjar',
          parts: n % 2 === 0 ? [keys, service] : [service, keys],
        },
      }),
    ),
  );
  const statuses = results.map((r) => r.statusCode);
  assert.ok(
    statuses.every((s) => s === 200 || s === 422),
    `only 200 and 422, got ${[...new Set(statuses)].join(', ')}`,
  );
  assert.equal(statuses.filter((s) => s === 200).length, 30, 'a stock of 30 of each sells 30 orders');
  const product = assertOk(await api.get(`/self/${shop.shopId}/v2/products/${shop.productId}`));
  assert.deepEqual(
    product.variants.map((v: { stock: number }) => v.stock),
    [0, 0],
  );
});

test('owner saves that list variants out of id order never fail against parallel checkouts and completions', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const variant = (title: string) => ({
    title,
    priceDetails: { amount: 3 },
    productType: 'service',
    asService: { text: `${title} text`, stock: 1000 },
  });
  const product = assertOk(
    await api.post(`/self/${shop.shopId}/v2/products`, {
      title: 'Pair',
      description: 'Two services',
      variants: [variant('First'), variant('Second')],
    }),
  );
  const [first, second] = product.variants as [{ id: number; title: string }, { id: number; title: string }];
  // Saved with the higher id listed first, the product's variants are in position order second,
  // first; a checkout of both takes them in id order, first, second.
  const { asService, ...rest } = variant('x');
  const listed = [second, first].map((v) => ({
    ...rest,
    id: v.id,
    title: v.title,
    asService: { text: asService.text },
  }));
  const save = () =>
    api.put(`/self/${shop.shopId}/v2/products/${product.id}`, {
      title: 'Pair',
      description: 'Two services',
      variants: listed,
    });
  assertOk(await save());
  const parts = [first, second].map((v) => ({ productId: product.id, productVariantId: v.id, quantity: 1 }));
  const buy = (n: number) =>
    app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: { customerEmail: `save${n}@example.com`, gateway: 'tipjar', parts },
    });
  const pending = (await Promise.all(Array.from({ length: 20 }, (_, n) => buy(100 + n)))).map(
    (r) => r.json().data.id as string,
  );
  // Saves race checkouts (which take both variants' stock) and completions (which count the
  // product's sales): every one of them succeeds.
  const results = await Promise.all(
    Array.from({ length: 60 }, (_, n) =>
      n % 3 === 0
        ? save().then((r) => r.status)
        : n % 3 === 1
          ? buy(n).then((r) => r.statusCode)
          : api.post(`/self/${shop.shopId}/invoices/${pending[(n - 2) / 3]}/process`).then((r) => r.status),
    ),
  );
  assert.deepEqual([...new Set(results)], [200], 'every save, checkout and completion succeeds');
  const after = assertOk(await api.get(`/self/${shop.shopId}/v2/products/${product.id}`));
  assert.deepEqual(
    after.variants.map((v: { id: number; stock: number }) => [v.id, v.stock]),
    [
      [second.id, 960],
      [first.id, 960],
    ],
  );
});

test('parallel completions of orders naming two products in opposite orders all succeed', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const service = async (title: string) =>
    assertOk(
      await api.post(`/self/${shop.shopId}/v2/products`, {
        title,
        description: title,
        variants: [
          {
            title,
            priceDetails: { amount: 2 },
            productType: 'service',
            asService: { text: `${title} text`, stock: null },
          },
        ],
      }),
    );
  const [a, b] = [await service('Alpha'), await service('Beta')];
  const part = (p: { id: number; variants: { id: number }[] }) => ({
    productId: p.id,
    productVariantId: p.variants[0]!.id,
    quantity: 1,
  });
  const ids: string[] = [];
  for (let n = 0; n < 30; n++) {
    const parts = n % 2 === 0 ? [part(a), part(b)] : [part(b), part(a)];
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: { customerEmail: `both${n}@example.com`, gateway: 'tipjar', parts },
    });
    ids.push(res.json().data.id as string);
  }
  // Each completion counts both products' sales; taken in the order the buyer named them, two
  // completions could each hold one product and wait for the other's.
  const statuses = (await Promise.all(ids.map((id) => api.post(`/self/${shop.shopId}/invoices/${id}/process`)))).map(
    (r) => r.status,
  );
  assert.deepEqual([...new Set(statuses)], [200]);
  const sold = await app.db.kysely
    .selectFrom('products')
    .select('sold_count')
    .where('id', 'in', [a.id, b.id])
    .execute();
  assert.deepEqual(
    sold.map((r) => r.sold_count),
    [30, 30],
  );
});

test('parallel completions of two customers referring each other all succeed and pay every commission', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serviceStock: null });
  assertOk(await api.put(`/self/${shop.shopId}/settings/affiliate`, { percentage: 10 }));
  const other = assertOk(
    await api.post(`/self/${shop.shopId}/v2/products`, {
      title: 'Other',
      description: 'Other',
      variants: [
        {
          title: 'Other',
          priceDetails: { amount: 5 },
          productType: 'service',
          asService: { text: 'Other text', stock: null },
        },
      ],
    }),
  );
  // x and y buy different products, so nothing but their customer rows is common to their completions.
  const buy = async (email: string, affiliateCode?: string) => {
    const parts = [
      email.startsWith('x')
        ? { productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }
        : { productId: other.id, productVariantId: other.variants[0].id, quantity: 1 },
    ];
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: { customerEmail: email, gateway: 'tipjar', parts, ...(affiliateCode ? { affiliateCode } : {}) },
    });
    return res.json().data.id as string;
  };
  await buy('x@example.com');
  await buy('y@example.com');
  const customers = assertOk(await api.get(`/self/${shop.shopId}/customers`)).items as {
    id: number;
    email: string;
    referralCode: string;
  }[];
  const [x, y] = ['x@example.com', 'y@example.com'].map((e) => customers.find((c) => c.email === e)!) as [
    (typeof customers)[0],
    (typeof customers)[0],
  ];
  const ids: string[] = [];
  for (let n = 0; n < 15; n++)
    ids.push(await buy('x@example.com', y.referralCode), await buy('y@example.com', x.referralCode));
  // A completion updates its buyer, then credits the referrer: in the order of their roles, two
  // completions with the roles swapped could each hold one customer and wait for the other.
  const statuses = (await Promise.all(ids.map((id) => api.post(`/self/${shop.shopId}/invoices/${id}/process`)))).map(
    (r) => r.status,
  );
  assert.deepEqual([...new Set(statuses)], [200]);
  for (const c of [x, y])
    assert.equal(
      assertOk(await api.get(`/self/${shop.shopId}/customers/${c.id}`)).balance,
      7.5,
      '15 commissions of 10 % of 5.00',
    );
});

test("customers' feedbacks and ticket messages never fail against parallel owner writes that hold the shop", async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serviceStock: null });
  const buy = async (n: number) => {
    const invoice = assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: `rater${n}@example.com`,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
      }),
    );
    assertOk(await api.post(`/self/${shop.shopId}/invoices/${invoice.id}/process`));
    return {
      id: invoice.id as string,
      customerId: assertOk(await api.get(`/self/${shop.shopId}/invoices/${invoice.id}`)).customerId as number,
    };
  };
  const invoices: { id: string; customerId: number }[] = [];
  for (let n = 0; n < 20; n++) invoices.push(await buy(n));
  const opened = await Promise.all(
    [0, 1, 2].map(async (n) => {
      const res = await app.inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.shopId}/tickets`,
        payload: { email: `t${n}@example.com`, title: 'Help', message: 'Hello' },
      });
      return res.json().data as { id: number; accessKey: string };
    }),
  );
  // The owner's catalog, announcement and timezone writes hold the shop row exclusively, the
  // timezone change also rebuilding the rollups; the customers' writes insert rows referencing
  // the shop and take the rollup lock. None may wait for the other in a cycle.
  const variants = (
    assertOk(await api.get(`/self/${shop.shopId}/v2/products/${shop.productId}`)).variants as Record<string, unknown>[]
  ).map((v) => Object.fromEntries(Object.entries(v).filter(([, value]) => value !== null)));
  const product = { title: 'Game Key', description: 'A key', variants };
  const writes = Array.from({ length: 60 }, (_, n): Promise<number> => {
    const i = Math.floor(n / 3);
    if (n % 3 === 0)
      return app
        .inject({
          method: 'POST',
          url: `/v2/public/invoices/${invoices[i]!.id}/feedback`,
          payload: { rating: 1 + (i % 5), comment: `n${n}` },
        })
        .then((r) => r.statusCode);
    if (n % 6 === 1)
      return api
        .put(`/self/${shop.shopId}/settings/timezone`, { utcTimezoneOffset: i % 2 === 0 ? 60 : -120 })
        .then((r) => r.status);
    if (n % 6 === 4)
      return api
        .post(`/self/${shop.shopId}/announcements`, { title: `News ${n}`, content: 'Restocked' })
        .then((r) => r.status);
    if (n % 12 === 2)
      return api
        .put(`/self/${shop.shopId}/v2/products/${shop.productId}`, { ...product, title: `Game Key ${n}` })
        .then((r) => r.status);
    if (n % 12 === 5)
      return api
        .post(`/self/${shop.shopId}/customers/${invoices[i]!.customerId}/balance/add`, { amount: 1 })
        .then((r) => r.status);
    const ticket = opened[n % 3]!;
    if (n % 12 === 8)
      return api
        .post(`/self/${shop.shopId}/tickets/${ticket.id}/message`, { content: `Answer ${n}` })
        .then((r) => r.status);
    return app
      .inject({
        method: 'POST',
        url: `/v2/public/tickets/${ticket.id}/message?accessKey=${encodeURIComponent(ticket.accessKey)}`,
        payload: { content: `More ${n}` },
      })
      .then((r) => r.statusCode);
  });
  const statuses = await Promise.all(writes);
  assert.deepEqual(
    [...new Set(statuses)].sort(),
    [200, 201].filter((s) => statuses.includes(s)),
    `only successes, got ${statuses.join(', ')}`,
  );
  // Every feedback reached the rollups, across the rebuilds of the timezone changes.
  const dashboard = assertOk(await api.get(`/self/${shop.shopId}/dashboard/advanced`));
  assert.equal(dashboard.averageRating, 3, '20 ratings of 1–5, four of each');
  const feedbacks = assertOk(await api.get(`/self/${shop.shopId}/feedbacks`));
  assert.equal(feedbacks.totalCount, 20);
});

test('parallel balance changes never lose an update and never go negative', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const invoice = assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'rich@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
    }),
  );
  const customerId = assertOk(await api.get(`/self/${shop.shopId}/invoices/${invoice.id}`)).customerId;
  const url = (d: string) => `/self/${shop.shopId}/customers/${customerId}/balance/${d}`;

  const adds = await Promise.all(Array.from({ length: 50 }, () => api.post(url('add'), { amount: 0.1 })));
  assert.ok(adds.every((r) => r.status === 200));
  assert.equal(
    assertOk(await api.get(`/self/${shop.shopId}/customers/${customerId}`)).balance,
    5,
    '50 × 0.10, none lost',
  );

  const removes = await Promise.all(Array.from({ length: 30 }, () => api.post(url('remove'), { amount: 0.3 })));
  const ok = removes.filter((r) => r.status === 200).length;
  assert.equal(ok, 16, '5.00 covers 16 debits of 0.30');
  assert.ok(removes.filter((r) => r.status !== 200).every((r) => r.status === 422));
  const customer = assertOk(await api.get(`/self/${shop.shopId}/customers/${customerId}`));
  assert.equal(customer.balance, 0.2);
  const ledger = await app.db.kysely
    .selectFrom('balance_entries')
    .select(['amount', 'balance_after'])
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  assert.equal(ledger.length, 66);
  assert.equal(
    ledger.reduce((sum, e) => sum + e.amount, 0),
    20,
    'the ledger adds up to the balance',
  );
  assert.ok(ledger.every((e) => e.balance_after >= 0));
});

test('an idempotent balance call retried in parallel acts once', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const invoice = assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'retry@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
    }),
  );
  const customerId = assertOk(await api.get(`/self/${shop.shopId}/invoices/${invoice.id}`)).customerId;
  const url = `/self/${shop.shopId}/customers/${customerId}/balance/add`;
  const headers = { 'idempotency-key': 'credit-once' };
  const results = await Promise.all(Array.from({ length: 10 }, () => api.post(url, { amount: 7 }, headers)));
  assert.ok(results.every((r) => r.status === 200 || r.status === 409));
  const replay = await api.post(url, { amount: 7 }, headers);
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.equal(assertOk(await api.get(`/self/${shop.shopId}/customers/${customerId}`)).balance, 7);
  assert.equal((await api.post(url, { amount: 8 }, headers)).status, 409);
});

/** Sessions of this test's database waiting for a lock (PostgreSQL). */
async function lockWaits(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
  `.execute(db);
  return Number(rows[0]!.n);
}

/**
 * What a checkout holds from its first step: the shop's shared lock, in a transaction kept open
 * until `release()`. `inside` runs once the lock is granted; `done` answers what it answered.
 */
function heldShare<T>(db: Kysely<Database>, shopId: number, inside: (trx: Kysely<Database>) => Promise<T>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let granted = false;
  const done = db.transaction().execute(async (trx) => {
    await shareShop(trx, shopId);
    granted = true;
    const answer = await inside(trx);
    await released;
    return answer;
  });
  return { release, done, granted: () => granted };
}

test("an owner's edit waits only for the checkouts in progress when it asks: checkouts started after it wait for it", {
  skip: engine !== 'postgres' && 'PostgreSQL only: SQLite runs one write transaction at a time',
}, async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const db = app.db.kysely;
  const { shopId } = await sellingShop(api);
  const variant = { title: 'Hour', priceDetails: { amount: 3 }, productType: 'service' };
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Before',
      description: 'A service',
      variants: [{ ...variant, asService: { text: 'Hour text', stock: 100 } }],
    }),
  );
  const variantId = product.variants[0].id as number;
  const titleOf = async (trx: Kysely<Database>) =>
    (await trx.selectFrom('products').select('title').where('id', '=', product.id).executeTakeFirstOrThrow()).title;

  // A checkout in progress holds the shop; the owner's edit asks for it and waits.
  const inProgress = heldShare(db, shopId, async () => undefined);
  await waitUntil(inProgress.granted, 'the first checkout to hold the shop');
  const edit = api.put(`/self/${shopId}/v2/products/${product.id}`, {
    title: 'After',
    description: 'A service',
    variants: [{ ...variant, id: variantId, asService: { text: 'Hour text' } }],
  });
  let next: ReturnType<typeof heldShare<string>> | undefined;
  try {
    await waitUntil(async () => (await lockWaits(db)) >= 1, 'the edit to wait for the checkout in progress');
    // A checkout starting now, while the edit waits: with row locks it was granted at once (a
    // share never waits for a queued exclusive request), and a stream of such checkouts kept the
    // edit waiting for as long as the stream lasted.
    const later = heldShare(db, shopId, titleOf);
    next = later;
    await waitUntil(
      async () => later.granted() || (await lockWaits(db)) >= 2,
      'the later checkout to be granted or to wait',
    );
    assert.equal(later.granted(), false, 'a checkout that starts after the edit asked waits behind it');
    // A real checkout request queues there too, its first step the shop lock.
    const checkout = app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      payload: {
        customerEmail: 'later@example.com',
        gateway: 'tipjar',
        parts: [{ productId: product.id, productVariantId: variantId, quantity: 1 }],
      },
    });
    await waitUntil(async () => (await lockWaits(db)) >= 3, 'the checkout request to wait behind the edit');

    // The checkout in progress ends: the edit goes next and completes while the later checkouts
    // are still open; they were granted the shop after the edit committed, and see it.
    inProgress.release();
    await inProgress.done;
    assertOk(await edit);
    assert.equal((await checkout).statusCode, 200);
    later.release();
    assert.equal(await later.done, 'After', 'the later checkout read the shop after the edit');
  } finally {
    // On a failure, every transaction still open ends, so the edit and the app can finish.
    inProgress.release();
    next?.release();
    await Promise.allSettled([inProgress.done, edit, next?.done]);
  }
});

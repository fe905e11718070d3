import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';

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
      payload: { customerEmail: `buyer${n}@example.com`, gateway: 'tipjar', parts: [{ productId: shop.productId, productVariantId: variant, quantity: 2 }] },
    });
  const results = await Promise.all(Array.from({ length: 40 }, (_, n) => buy(shop.keysVariant, n)));
  const created = results.filter((r) => r.statusCode === 200).map((r) => r.json().data.id as string);
  const refused = results.filter((r) => r.statusCode === 422);
  assert.equal(created.length, 10, '20 serials, 2 per order');
  assert.equal(refused.length, 30);
  assert.ok(refused.every((r) => r.json().code === 'unprocessable'));

  const serviceResults = await Promise.all(Array.from({ length: 20 }, (_, n) => buy(shop.serviceVariant, 100 + n)));
  assert.equal(serviceResults.filter((r) => r.statusCode === 200).length, 7, 'a counted stock of 15 sells 7 orders of 2');

  // Every invoice processed twice at once: each completes exactly once.
  const processed = await Promise.all(created.flatMap((id) => [1, 2].map(() => api.post(`/self/${shop.shopId}/invoices/${id}/process`))));
  assert.equal(processed.filter((r) => r.status === 200).length, 10);
  assert.ok(processed.filter((r) => r.status !== 200).every((r) => r.status === 409));
  const delivered: string[] = [];
  for (const id of created) delivered.push(...assertOk(await api.get(`/self/${shop.shopId}/invoices/${id}`)).parts[0].deliverables);
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
        payload: { customerEmail: `pair${n}@example.com`, gateway: 'tipjar', parts: n % 2 === 0 ? [keys, service] : [service, keys] },
      }),
    ),
  );
  const statuses = results.map((r) => r.statusCode);
  assert.ok(statuses.every((s) => s === 200 || s === 422), `only 200 and 422, got ${[...new Set(statuses)].join(', ')}`);
  assert.equal(statuses.filter((s) => s === 200).length, 30, 'a stock of 30 of each sells 30 orders');
  const product = assertOk(await api.get(`/self/${shop.shopId}/v2/products/${shop.productId}`));
  assert.deepEqual(product.variants.map((v: { stock: number }) => v.stock), [0, 0]);
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
  assert.equal(assertOk(await api.get(`/self/${shop.shopId}/customers/${customerId}`)).balance, 5, '50 × 0.10, none lost');

  const removes = await Promise.all(Array.from({ length: 30 }, () => api.post(url('remove'), { amount: 0.3 })));
  const ok = removes.filter((r) => r.status === 200).length;
  assert.equal(ok, 16, '5.00 covers 16 debits of 0.30');
  assert.ok(removes.filter((r) => r.status !== 200).every((r) => r.status === 422));
  const customer = assertOk(await api.get(`/self/${shop.shopId}/customers/${customerId}`));
  assert.equal(customer.balance, 0.2);
  const ledger = await app.db.kysely.selectFrom('balance_entries').select(['amount', 'balance_after']).where('customer_id', '=', customerId).orderBy('id').execute();
  assert.equal(ledger.length, 66);
  assert.equal(ledger.reduce((sum, e) => sum + e.amount, 0), 20, 'the ledger adds up to the balance');
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

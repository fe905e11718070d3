import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

async function setup(t: TestContext) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: Array.from({ length: 30 }, (_, i) => `S${i}`) });
  const buy = async (email: string, opts: { ip?: string; affiliateCode?: string; quantity?: number } = {}) =>
    assertOk(
      await app
        .inject({
          method: 'POST',
          url: `/v2/public/shops/${shop.shopId}/invoices`,
          payload: {
            customerEmail: email,
            gateway: 'tipjar',
            parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: opts.quantity ?? 1 }],
            ...(opts.affiliateCode ? { affiliateCode: opts.affiliateCode } : {}),
          },
          ...(opts.ip ? { remoteAddress: opts.ip } : {}),
        })
        .then((r) => ({ status: r.statusCode, body: r.json() })),
    );
  const pay = async (invoiceId: string) =>
    assertOk(await api.post(`/self/${shop.shopId}/invoices/${invoiceId}/process`));
  return { app, api, ...shop, buy, pay, base: `/self/${shop.shopId}/customers` };
}

test('customers are created per shop by e-mail at checkout, with their IPs', async (t) => {
  const { api, buy, pay, base } = await setup(t);
  const first = await buy('Ann@Example.com', { ip: '203.0.113.7' });
  await buy('ann@example.com', { ip: '203.0.113.7' });
  await buy('ann@example.com', { ip: '198.51.100.1' });
  await pay(first.id);
  await buy('bob@example.com');
  const list = assertOk(await api.get(base));
  assert.equal(list.totalCount, 2);
  const ann = list.items.find((c: { email: string }) => c.email === 'ann@example.com');
  assert.equal(ann.ordersCount, 1);
  assert.equal(ann.totalSpent, 9.99);
  assert.equal(ann.currency, 'USD');
  assert.match(ann.referralCode, /^[A-Za-z0-9_-]{8}$/);
  assert.deepEqual(assertOk(await api.get(`${base}/${ann.id}`)), ann);
  const ips = assertOk(await api.get(`${base}/${ann.id}/ips`));
  assert.deepEqual(ips.items.map((i: { ip: string; count: number }) => [i.ip, i.count]).sort(), [
    ['198.51.100.1', 1],
    ['203.0.113.7', 2],
  ]);
  assert.deepEqual(
    assertOk(await api.get(`${base}?searchString=BOB`)).items.map((c: { email: string }) => c.email),
    ['bob@example.com'],
  );
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(assertOk(await api.get(`${base}?fromDate=${today}`)).totalCount, 2);
  assert.equal(assertOk(await api.get(`${base}?toDate=2020-01-01`)).totalCount, 0);
  assertError(await api.get(`${base}/999999`), 404, 'not_found');
  assertError(await api.get(`${base}/999999/ips`), 404, 'not_found');
  assertError(await api.get(`${base}?fromDate=tomorrow`), 400, 'validation_error');
});

test('balance add and remove are a ledger with checks', async (t) => {
  const { api, buy, base } = await setup(t);
  await buy('cash@example.com');
  const id = assertOk(await api.get(base)).items[0].id;
  assert.deepEqual(assertOk(await api.post(`${base}/${id}/balance/add`, { amount: 12.5, note: 'refund' })), {
    customerId: id,
    balance: 12.5,
    currency: 'USD',
  });
  assert.equal(assertOk(await api.post(`${base}/${id}/balance/remove`, { amount: 2.25 })).balance, 10.25);
  const tooMuch = await api.post(`${base}/${id}/balance/remove`, { amount: 10.26 });
  assertError(tooMuch, 422, 'unprocessable');
  assert.deepEqual(tooMuch.body.errors, ['amount: exceeds the balance']);
  for (const body of [
    {},
    { amount: 0 },
    { amount: -1 },
    { amount: '5' },
    { amount: 0.001 },
    { amount: 1, note: 'x'.repeat(501) },
  ]) {
    assertError(await api.post(`${base}/${id}/balance/add`, body), 400, 'validation_error');
  }
  assertError(await api.post(`${base}/999999/balance/add`, { amount: 1 }), 404, 'not_found');
  assert.equal(assertOk(await api.get(`${base}/${id}`)).balance, 10.25, 'refused calls changed nothing');
});

test('customer stats over a range', async (t) => {
  const { api, buy, pay, base } = await setup(t);
  const a1 = await buy('a@example.com', { quantity: 2 });
  const a2 = await buy('a@example.com');
  const b1 = await buy('b@example.com');
  await buy('c@example.com');
  for (const inv of [a1, a2, b1]) await pay(inv.id);
  const a = assertOk(await api.get(`${base}?searchString=a@`)).items[0];
  assertOk(await api.post(`${base}/${a.id}/balance/add`, { amount: 3 }));
  const stats = assertOk(await api.get(`${base}/stats`));
  assert.equal(stats.totalCustomers, 3);
  assert.equal(stats.newCustomers, 3);
  assert.equal(stats.returningCustomers, 1);
  assert.equal(stats.totalBalance, 3);
  assert.deepEqual(
    stats.topCustomers.map((c: { email: string; totalSpent: number; orders: number }) => [
      c.email,
      c.totalSpent,
      c.orders,
    ]),
    [
      ['a@example.com', 29.97, 2],
      ['b@example.com', 9.99, 1],
    ],
  );
  const old = assertOk(await api.get(`${base}/stats?fromDate=2020-01-01&toDate=2020-12-31`));
  assert.equal(old.newCustomers, 0);
  assert.deepEqual(old.topCustomers, []);
  assertError(await api.get(`${base}/stats?fromDate=2021-01-01&toDate=2020-01-01`), 400, 'validation_error');
});

test('affiliates earn the shop percentage of referred orders until disabled', async (t) => {
  const { api, shopId, buy, pay, base } = await setup(t);
  assertOk(await api.put(`/self/${shopId}/settings/affiliate`, { percentage: 12.5 }));
  await buy('ref@example.com');
  const referrer = assertOk(await api.get(base)).items[0];
  const referred = await buy('friend@example.com', { affiliateCode: referrer.referralCode, quantity: 2 });
  await pay(referred.id);
  const owned = assertOk(await api.get(`/self/${shopId}/invoices/${referred.id}`));
  assert.equal(owned.affiliateCode, referrer.referralCode);
  assert.equal(owned.commission, 2.49, 'floor of 12.5 % of 19.98');
  assert.equal(assertOk(await api.get(`${base}/${referrer.id}`)).balance, 2.49);
  // Unknown codes and one's own code are ignored, not refused.
  assert.equal(
    assertOk(await api.get(`/self/${shopId}/invoices/${(await buy('x@example.com', { affiliateCode: 'nope' })).id}`))
      .affiliateCode,
    null,
  );
  assert.equal(
    assertOk(
      await api.get(
        `/self/${shopId}/invoices/${(await buy('ref@example.com', { affiliateCode: referrer.referralCode })).id}`,
      ),
    ).affiliateCode,
    null,
  );

  const list = assertOk(await api.get(`/self/${shopId}/affiliates`));
  assert.equal(list.totalCount, 1);
  assert.deepEqual(list.items[0], {
    customerId: referrer.id,
    email: 'ref@example.com',
    referralCode: referrer.referralCode,
    referredOrders: 1,
    referredRevenue: 19.98,
    earned: 2.49,
    currency: 'USD',
    disabled: false,
  });
  const stats = assertOk(await api.get(`/self/${shopId}/affiliates/stats`));
  assert.equal(stats.percentage, 12.5);
  assert.equal(stats.activeAffiliates, 1);
  assert.equal(stats.referredOrders, 1);
  assert.equal(stats.referredRevenue, 19.98);
  assert.equal(stats.commissionPaid, 2.49);

  assert.equal(
    assertOk(await api.post(`/self/${shopId}/affiliates/${referrer.id}/referral/disable`)).referralDisabled,
    true,
  );
  const later = await buy('friend2@example.com', { affiliateCode: referrer.referralCode });
  await pay(later.id);
  assert.equal(assertOk(await api.get(`${base}/${referrer.id}`)).balance, 2.49, 'no commission once disabled');
  assertError(await api.post(`/self/${shopId}/affiliates/999999/referral/disable`), 404, 'not_found');
});

test('a currency change keeps balances, totals and prices as numbers', async (t) => {
  const { app, api, shopId, buy, pay, base } = await setup(t);
  await pay((await buy('fx@example.com')).id);
  const id = assertOk(await api.get(base)).items[0].id;
  assertOk(await api.post(`${base}/${id}/balance/add`, { amount: 4.99 }));
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'JPY' }));
  const c = assertOk(await api.get(`${base}/${id}`));
  assert.deepEqual([c.balance, c.totalSpent, c.currency], [5, 10, 'JPY']);
  const stored = await app.db.kysely
    .selectFrom('customers')
    .select(['balance', 'total_spent'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(stored, { balance: 5, total_spent: 1000 / 100 }, 'whole minor units, not fractions');
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'KWD' }));
  assert.deepEqual(assertOk(await api.get(`${base}/${id}`)).balance, 5);
});

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

type ListedCustomer = { id: number; email: string; balance: number; createdAt: string };

test('the customer list sorts by creation, e-mail and balance, with filters, search and cursors in every order', async (t) => {
  const { api, buy, base } = await setup(t);
  for (const email of ['dan@example.com', 'ann@example.com', 'cat@example.com', 'bob@example.com']) await buy(email);
  const all: ListedCustomer[] = assertOk(await api.get(base)).items;
  const byEmail = new Map(all.map((c) => [c.email, c.id]));
  const id = (email: string) => byEmail.get(email)!;
  // Balances 5, 0, 2.5 and 5: ann and dan tie, in an order the id decides.
  for (const [email, amount] of [
    ['ann@example.com', 5],
    ['cat@example.com', 2.5],
    ['dan@example.com', 5],
  ] as const)
    assertOk(await api.post(`${base}/${id(email)}/balance/add`, { amount }));

  const walk = async (query: string, pageSize: number): Promise<ListedCustomer[]> => {
    const rows: ListedCustomer[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: ListedCustomer[]; nextCursor: string | null; totalCount: number } = assertOk(
        await api.get(`${base}?${query}&pageSize=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`),
      );
      rows.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return rows;
  };
  const emails = async (query: string) => (await walk(query, 1)).map((c) => c.email);

  assert.deepEqual(
    await emails('orderBy=email'),
    ['ann', 'bob', 'cat', 'dan'].map((n) => `${n}@example.com`),
  );
  assert.deepEqual(
    await emails('orderBy=-email'),
    ['dan', 'cat', 'bob', 'ann'].map((n) => `${n}@example.com`),
  );
  const byBalance = await emails('orderBy=balance');
  assert.deepEqual(byBalance.slice(0, 2), ['bob@example.com', 'cat@example.com']);
  assert.deepEqual(byBalance.slice(2).sort(), ['ann@example.com', 'dan@example.com']);
  assert.deepEqual(await emails('orderBy=-balance'), [...byBalance].reverse());
  const newest = all.map((c) => c.email);
  assert.deepEqual(await emails('orderBy=-createdAt'), newest);
  assert.deepEqual(await emails('orderBy=createdAt'), [...newest].reverse());

  for (const orderBy of ['createdAt', '-createdAt', 'email', '-email', 'balance', '-balance']) {
    const listed: ListedCustomer[] = assertOk(await api.get(`${base}?orderBy=${orderBy}`)).items;
    const sign = orderBy.startsWith('-') ? -1 : 1;
    for (let i = 1; i < listed.length; i++) {
      const [prev, next] = [listed[i - 1]!, listed[i]!];
      const step = orderBy.endsWith('email')
        ? next.email.localeCompare(prev.email)
        : orderBy.endsWith('balance')
          ? next.balance - prev.balance
          : Date.parse(next.createdAt) - Date.parse(prev.createdAt);
      assert.ok(sign * step >= 0, `${orderBy}: row ${i} out of order`);
    }
    for (const pageSize of [1, 3]) {
      const walked = await walk(`orderBy=${orderBy}`, pageSize);
      assert.deepEqual(walked, listed, `${orderBy} by ${pageSize}`);
    }
  }

  // Search and date filters apply in every order.
  assert.deepEqual(await emails('searchString=N@EX&orderBy=-email'), ['dan@example.com', 'ann@example.com']);
  assert.deepEqual(await emails('searchString=AT@&orderBy=balance'), ['cat@example.com']);
  assert.deepEqual(
    await emails('searchString=AN&orderBy=balance'),
    ['ann@example.com', 'dan@example.com'].sort((x, y) => byBalance.indexOf(x) - byBalance.indexOf(y)),
  );
  const today = new Date().toISOString().slice(0, 10);
  assert.deepEqual(await emails(`fromDate=${today}&toDate=${today}&orderBy=email`), await emails('orderBy=email'));
  assert.deepEqual(await emails('toDate=2020-01-01&orderBy=balance'), []);
  const page2 = assertOk(await api.get(`${base}?orderBy=email&pageSize=3&pageNumber=2`));
  assert.deepEqual(
    page2.items.map((c: ListedCustomer) => c.email),
    ['dan@example.com'],
  );
  assert.equal(page2.totalCount, 4);

  for (const bad of ['orderBy=name', 'orderBy=-', 'orderBy=Email', 'orderBy=totalSpent']) {
    assertError(await api.get(`${base}?${bad}`), 400, 'validation_error');
  }
  // A cursor answers only the order that returned it: any other is refused, never a wrong page.
  const orders = ['', 'createdAt', '-createdAt', 'email', '-email', 'balance', '-balance'];
  for (const from of orders) {
    const cursor = assertOk(await api.get(`${base}?pageSize=1${from ? `&orderBy=${from}` : ''}`)).nextCursor;
    assert.ok(cursor);
    for (const to of orders) {
      const res = await api.get(`${base}?cursor=${cursor}${to ? `&orderBy=${to}` : ''}`);
      if ((from || '-createdAt') === (to || '-createdAt'))
        assert.equal(assertOk(res).items.length, 3, `${from} -> ${to}`);
      else {
        assertError(res, 400, 'validation_error');
        assert.deepEqual(res.body.errors, ['cursor: is not a cursor this list returned'], `${from} -> ${to}`);
      }
    }
  }
});

test('a refund takes the commission back in proportion, all of it by the last part; never below a zero balance', async (t) => {
  const { api, shopId, buy, pay, base } = await setup(t);
  assertOk(await api.put(`/self/${shopId}/settings/affiliate`, { percentage: 10 }));
  await buy('ref@example.com');
  const referrer = assertOk(await api.get(base)).items[0];
  const balanceOf = async () => assertOk(await api.get(`${base}/${referrer.id}`)).balance;
  const invoiceUrl = (id: string) => `/self/${shopId}/invoices/${id}`;

  // 4 keys at 9.99 = 39.96: a commission of 3.99 (floor of 10 %).
  const order = await buy('friend@example.com', { affiliateCode: referrer.referralCode, quantity: 4 });
  await pay(order.id);
  assert.equal(await balanceOf(), 3.99);
  // A quarter refunded takes a quarter back (rounded), the rest takes what is left: 3.99 in all.
  assertOk(await api.post(`${invoiceUrl(order.id)}/refund`, { amount: 9.99 }));
  assert.equal(await balanceOf(), 2.99);
  assert.equal(assertOk(await api.get(invoiceUrl(order.id))).commission, 2.99, 'the commission that still stands');
  assertOk(await api.post(`${invoiceUrl(order.id)}/refund`, {}));
  assert.equal(await balanceOf(), 0);
  assert.equal(assertOk(await api.get(invoiceUrl(order.id))).commission, 0);
  const stats = assertOk(await api.get(`/self/${shopId}/affiliates/stats`));
  assert.equal(stats.commissionPaid, 0, 'the affiliate totals count what stands');

  // A referrer who spent the commission goes to zero, not below, and the refund is still made.
  const second = await buy('friend2@example.com', { affiliateCode: referrer.referralCode, quantity: 2 });
  await pay(second.id);
  assert.equal(await balanceOf(), 1.99);
  assertOk(await api.post(`${base}/${referrer.id}/balance/remove`, { amount: 1.5 }));
  const refunded = assertOk(await api.post(`${invoiceUrl(second.id)}/refund`, {}));
  assert.equal(refunded.status, 'completed');
  assert.equal(await balanceOf(), 0);
});

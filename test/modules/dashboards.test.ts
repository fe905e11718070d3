import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { rebuildRollups } from '../../src/modules/rollups/rollups.js';
import { build, type Client, owner } from '../helpers/build.js';
import { customerSession } from '../helpers/customer-session.js';
import { assertError, assertOk, createShop, sellingShop } from '../helpers/factories.js';

/**
 * Orders are placed through the public checkout and processed through the owner API, then
 * moved in time in the database. Every expected figure is computed here from the order specs
 * alone (prices, quantities, local times), never from what the service stores or answers.
 */

type Item = 'key' | 'support' | 'gift';
const PRICES: Record<Item, number> = { key: 999, support: 500, gift: 2550 }; // minor units

interface Spec {
  name: string;
  email: string;
  items: [Item, number][];
  /** Local time in the shop's timezone, 'YYYY-MM-DDTHH:MM'. */
  created: string;
  /** Minutes from creation to completion; absent: never completed. */
  completeAfter?: number;
  gateway?: 'tipjar' | 'balance';
  coupon?: true;
  expired?: true;
}

const specs: Spec[] = [
  { name: 'ann-before', email: 'ann@example.com', items: [['key', 1]], created: '2025-02-27T10:00', completeAfter: 30 },
  {
    name: 'ann-coupon',
    email: 'ann@example.com',
    items: [['key', 2]],
    created: '2025-03-01T00:05',
    completeAfter: 10,
    coupon: true,
  },
  {
    name: 'bob-midnight',
    email: 'bob@example.com',
    items: [['support', 1]],
    created: '2025-03-02T23:50',
    completeAfter: 20,
  },
  {
    name: 'bob-mixed',
    email: 'bob@example.com',
    items: [
      ['gift', 1],
      ['key', 1],
    ],
    created: '2025-03-03T12:00',
    completeAfter: 5,
  },
  { name: 'cara-pending', email: 'cara@example.com', items: [['key', 1]], created: '2025-03-04T09:00' },
  {
    name: 'cara-expired',
    email: 'cara@example.com',
    items: [['support', 3]],
    created: '2025-03-04T09:30',
    expired: true,
  },
  {
    name: 'dora-tipjar',
    email: 'dora@example.com',
    items: [['key', 1]],
    created: '2025-03-05T18:00',
    completeAfter: 60,
  },
  {
    name: 'dora-balance',
    email: 'dora@example.com',
    items: [['gift', 2]],
    created: '2025-03-06T08:15',
    completeAfter: 0,
    gateway: 'balance',
  },
  { name: 'eve-late', email: 'eve@example.com', items: [['key', 1]], created: '2025-03-07T23:59', completeAfter: 2 },
  {
    name: 'fay-after',
    email: 'fay@example.com',
    items: [['support', 1]],
    created: '2025-03-08T00:00',
    completeAfter: 1,
  },
  { name: 'gus-early', email: 'gus@example.com', items: [['gift', 1]], created: '2025-02-28T23:59', completeAfter: 2 },
  {
    name: 'hal-night',
    email: 'hal@example.com',
    items: [['support', 2]],
    created: '2025-03-03T04:40',
    completeAfter: 25,
  },
];

const RANGE = { fromDate: '2025-03-01', toDate: '2025-03-07' };
const MIN = 60_000;
const DAY = 86_400_000;

/** Local wall-clock time in a shop at `offset` minutes → epoch ms. */
const localToUtc = (local: string, offset: number) => Date.parse(`${local}:00.000Z`) - offset * MIN;
/** Epoch ms → the shop's local 'YYYY-MM-DDTHH:MM:SS…' wall clock. */
const wallClock = (ms: number, offset: number) => new Date(ms + offset * MIN).toISOString();

interface Placed {
  spec: Spec;
  id: string;
  customerId: number;
  created: number;
  completed: number | null;
  subtotal: number;
  total: number;
}

function expectedTotals(spec: Spec): { subtotal: number; total: number } {
  const subtotal = spec.items.reduce((sum, [item, qty]) => sum + PRICES[item] * qty, 0);
  // 10 % off, rounded down to the minor unit.
  const discount = spec.coupon ? Math.floor(subtotal / 10) : 0;
  return { subtotal, total: subtotal - discount };
}

async function setup(t: TestContext, offset: number) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, {
    serials: Array.from({ length: 40 }, (_, i) => `SER-${i}`),
    serviceStock: null,
  });
  assertOk(await api.put(`/self/${shop.shopId}/settings/timezone`, { utcTimezoneOffset: offset }));
  const gift = assertOk(
    await api.post(`/self/${shop.shopId}/v2/products`, {
      title: 'Gift Card',
      description: 'A card',
      variants: [
        {
          title: 'Card',
          priceDetails: { amount: 25.5 },
          productType: 'service',
          asService: { text: 'GIFT-CODE', stock: null },
        },
      ],
    }),
  );
  assertOk(await api.post(`/self/${shop.shopId}/coupons`, { name: 'TENOFF', discount: 10, isFixed: false }));
  const variants: Record<Item, { productId: number; variantId: number }> = {
    key: { productId: shop.productId, variantId: shop.keysVariant },
    support: { productId: shop.productId, variantId: shop.serviceVariant },
    gift: { productId: gift.id, variantId: gift.variants[0].id },
  };
  return { app, api, shopId: shop.shopId, variants, giftId: gift.id as number, keyProductId: shop.productId };
}

async function checkout(
  app: Awaited<ReturnType<typeof build>>,
  shopId: number,
  body: object,
  headers: Record<string, string> = {},
) {
  const res = await app.inject({ method: 'POST', url: `/v2/public/shops/${shopId}/invoices`, payload: body, headers });
  return assertOk({ status: res.statusCode, body: res.json() });
}

/** Places every spec, then moves each invoice (and its customer) to the spec's times. */
async function placeOrders(ctx: Awaited<ReturnType<typeof setup>>, offset: number): Promise<Placed[]> {
  const { app, api, shopId, variants } = ctx;
  const db = app.db.kysely;
  const placed: Placed[] = [];
  for (const spec of specs) {
    let headers: Record<string, string> = {};
    if (spec.gateway === 'balance') {
      // The buyer exists from an earlier order; the owner credits enough for this one, and the buyer signs in to spend it.
      const customer = placed.find((p) => p.spec.email === spec.email)!;
      assertOk(await api.post(`/self/${shopId}/customers/${customer.customerId}/balance/add`, { amount: 100 }));
      headers = { authorization: `Bearer ${await customerSession(app, shopId, spec.email)}` };
    }
    const invoice = await checkout(
      app,
      shopId,
      {
        customerEmail: spec.email,
        gateway: spec.gateway ?? 'tipjar',
        parts: spec.items.map(([item, quantity]) => ({
          ...variants[item],
          productVariantId: variants[item].variantId,
          quantity,
        })),
        ...(spec.coupon ? { coupon: 'TENOFF' } : {}),
      },
      headers,
    );
    let owned = assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`));
    if (spec.completeAfter !== undefined && owned.status === 'pending')
      owned = assertOk(await api.post(`/self/${shopId}/invoices/${invoice.id}/process`));
    const { subtotal, total } = expectedTotals(spec);
    assert.equal(owned.total, total / 100, `${spec.name}: the checkout priced it as expected`);
    assert.equal(owned.status, spec.completeAfter === undefined ? 'pending' : 'completed');
    const created = localToUtc(spec.created, offset);
    const completed = spec.completeAfter === undefined ? null : created + spec.completeAfter * MIN;
    await db
      .updateTable('invoices')
      .set({
        created_at: created,
        updated_at: completed ?? created,
        completed_at: completed,
        // The expired one is overdue (the dashboards expire it like any read); pending ones are not.
        expires_at: spec.expired ? created + 60 * MIN : Date.now() + DAY,
      })
      .where('id', '=', invoice.id)
      .execute();
    placed.push({ spec, id: invoice.id, customerId: owned.customerId, created, completed, subtotal, total });
  }
  for (const p of placed) {
    const first = Math.min(...placed.filter((q) => q.customerId === p.customerId).map((q) => q.created));
    await db.updateTable('customers').set({ created_at: first }).where('id', '=', p.customerId).execute();
  }
  return placed;
}

function expectedFigures(placed: Placed[], offset: number, range: { from: number; to: number }) {
  const inRange = (ms: number | null) => ms !== null && ms >= range.from && ms <= range.to;
  const completedIn = placed.filter((p) => inRange(p.completed));
  const createdIn = placed.filter((p) => inRange(p.created));
  const revenue = completedIn.reduce((s, p) => s + p.total, 0);
  const customersFirstSeen = new Map<number, number>();
  for (const p of placed)
    customersFirstSeen.set(p.customerId, Math.min(p.created, customersFirstSeen.get(p.customerId) ?? Infinity));

  const series = new Map<string, { revenue: number; orders: number }>();
  for (let d = Date.parse(`${RANGE.fromDate}T00:00:00Z`); d <= Date.parse(`${RANGE.toDate}T00:00:00Z`); d += DAY) {
    series.set(new Date(d).toISOString().slice(0, 10), { revenue: 0, orders: 0 });
  }
  for (const p of completedIn) series.get(wallClock(p.completed!, offset).slice(0, 10))!.revenue += p.total;
  for (const p of createdIn) series.get(wallClock(p.created, offset).slice(0, 10))!.orders += 1;

  const byGateway = new Map<string, { revenue: number; orders: number }>();
  for (const p of completedIn) {
    const g = byGateway.get(p.spec.gateway ?? 'tipjar') ?? { revenue: 0, orders: 0 };
    g.revenue += p.total;
    g.orders += 1;
    byGateway.set(p.spec.gateway ?? 'tipjar', g);
  }
  const byProduct = new Map<string, { revenue: number; quantity: number }>();
  for (const p of completedIn) {
    for (const [item, qty] of p.spec.items) {
      const product = item === 'gift' ? 'Gift Card' : 'Game Key';
      const e = byProduct.get(product) ?? { revenue: 0, quantity: 0 };
      e.revenue += PRICES[item] * qty;
      e.quantity += qty;
      byProduct.set(product, e);
    }
  }
  // Repeat purchases: orders whose customer had completed another order before.
  const repeats = completedIn.filter((p) =>
    placed.some((q) => q !== p && q.customerId === p.customerId && q.completed !== null && q.completed < p.completed!),
  );
  const hours = Array.from({ length: 24 }, () => 0);
  for (const p of completedIn) hours[Number(wallClock(p.completed!, offset).slice(11, 13))]! += 1;
  const count = completedIn.length;
  return {
    revenue: revenue / 100,
    ordersCount: createdIn.length,
    completedOrders: count,
    pendingOrders: createdIn.filter((p) => p.completed === null && !p.spec.expired).length,
    productsSold: completedIn.reduce((s, p) => s + p.spec.items.reduce((q, [, n]) => q + n, 0), 0),
    newCustomers: [...customersFirstSeen.values()].filter((ms) => inRange(ms)).length,
    // Half up to the cent, computed with BigInt so no float is involved.
    averageOrderValue: count === 0 ? 0 : Number((BigInt(revenue) * 2n + BigInt(count)) / (2n * BigInt(count))) / 100,
    series: [...series].map(([date, v]) => ({ date, revenue: v.revenue / 100, orders: v.orders })),
    revenueByGateway: [...byGateway]
      .map(([gateway, v]) => ({ gateway, revenue: v.revenue / 100, orders: v.orders }))
      .sort((a, b) => b.revenue - a.revenue),
    topProducts: [...byProduct]
      .map(([title, v]) => ({ title, revenue: v.revenue / 100, quantity: v.quantity }))
      .sort((a, b) => b.revenue - a.revenue),
    conversionRate:
      Math.round((createdIn.filter((p) => p.completed !== null).length / createdIn.length) * 10_000) / 10_000,
    returningCustomerRate: Math.round((repeats.length / count) * 10_000) / 10_000,
    ordersByHour: hours,
  };
}

async function dashboards(api: Client, shopId: number, query: string) {
  return {
    general: assertOk(await api.get(`/self/${shopId}/dashboard/general?${query}`)),
    advanced: assertOk(await api.get(`/self/${shopId}/dashboard/advanced?${query}`)),
  };
}

for (const offset of [0, 330, -300]) {
  test(`dashboards equal the hand-computed figures of the stored orders (UTC${offset >= 0 ? '+' : ''}${offset / 60} h)`, async (t) => {
    const ctx = await setup(t, offset);
    const { app, api, shopId } = ctx;
    const placed = await placeOrders(ctx, offset);
    const db = app.db.kysely;
    const byName = (name: string) => placed.find((p) => p.spec.name === name)!;

    if (offset !== 0) {
      // Orders whose UTC day is not their local day: the dashboards must bucket by the local one.
      const crossing = placed.filter(
        (p) => new Date(p.created).toISOString().slice(0, 10) !== p.spec.created.slice(0, 10),
      );
      assert.ok(crossing.length >= 2, 'some orders fall on another day in UTC');
    }

    // Replacements: one in the range (1 unit), one after it (2 units).
    const replace = async (name: string, quantity: number, local: string) => {
      const invoice = assertOk(await api.get(`/self/${shopId}/invoices/${byName(name).id}`));
      const part = invoice.parts.find((p: { title: string }) => p.title === 'Game Key');
      assertOk(
        await api.post(`/self/${shopId}/invoices/${invoice.id}/replacement`, { partInvoiceId: part.id, quantity }),
      );
      await db
        .updateTable('invoice_replacements')
        .set({ created_at: localToUtc(local, offset) })
        .where('invoice_id', '=', invoice.id)
        .execute();
    };
    await replace('bob-mixed', 1, '2025-03-05T10:00');
    await replace('ann-coupon', 2, '2025-03-09T10:00');

    // Feedbacks, stored directly: three in the range (5, 4, 2), one before it.
    const feedbacks: [string, number, string][] = [
      ['ann-coupon', 5, '2025-03-02T10:00'],
      ['bob-mixed', 4, '2025-03-04T10:00'],
      ['dora-tipjar', 2, '2025-03-07T23:30'],
      ['ann-before', 1, '2025-02-27T12:00'],
    ];
    for (const [name, rating, local] of feedbacks) {
      const p = byName(name);
      const at = localToUtc(local, offset);
      await db
        .insertInto('feedbacks')
        .values({
          shop_id: shopId,
          invoice_id: p.id,
          customer_id: p.customerId,
          rating,
          comment: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }

    // Another shop's orders in the same days change nothing here.
    const other = await sellingShop(api);
    const foreign = await checkout(app, other.shopId, {
      customerEmail: 'zed@example.com',
      gateway: 'tipjar',
      parts: [{ productId: other.productId, productVariantId: other.keysVariant, quantity: 1 }],
    });
    assertOk(await api.post(`/self/${other.shopId}/invoices/${foreign.id}/process`));
    const inside = localToUtc('2025-03-03T12:00', offset);
    await db
      .updateTable('invoices')
      .set({ created_at: inside, completed_at: inside })
      .where('id', '=', foreign.id)
      .execute();

    // Rows were moved in time behind the service's back: its rollups are built again from them.
    await rebuildRollups(db, shopId);
    await rebuildRollups(db, other.shopId);

    const from = localToUtc(`${RANGE.fromDate}T00:00`, offset);
    const to = localToUtc(`${RANGE.toDate}T00:00`, offset) + DAY - 1;
    const expected = expectedFigures(placed, offset, { from, to });
    const { general, advanced } = await dashboards(api, shopId, `fromDate=${RANGE.fromDate}&toDate=${RANGE.toDate}`);

    assert.equal(general.fromDate, new Date(from).toISOString());
    assert.equal(general.toDate, new Date(to).toISOString());
    assert.equal(general.currency, 'USD');
    assert.deepEqual(
      {
        revenue: general.revenue,
        ordersCount: general.ordersCount,
        completedOrders: general.completedOrders,
        pendingOrders: general.pendingOrders,
        productsSold: general.productsSold,
        newCustomers: general.newCustomers,
        averageOrderValue: general.averageOrderValue,
      },
      {
        revenue: expected.revenue,
        ordersCount: expected.ordersCount,
        completedOrders: expected.completedOrders,
        pendingOrders: expected.pendingOrders,
        productsSold: expected.productsSold,
        newCustomers: expected.newCustomers,
        averageOrderValue: expected.averageOrderValue,
      },
    );
    assert.equal(general.series.length, 7);
    assert.deepEqual(general.series, expected.series);
    // The series adds up to the totals: revenue by completion day, orders by creation day.
    assert.equal(
      Math.round(general.series.reduce((s: number, d: { revenue: number }) => s + d.revenue * 100, 0)),
      Math.round(general.revenue * 100),
    );
    assert.equal(
      general.series.reduce((s: number, d: { orders: number }) => s + d.orders, 0),
      general.ordersCount,
    );

    assert.equal(advanced.currency, 'USD');
    assert.deepEqual(advanced.revenueByGateway, expected.revenueByGateway);
    assert.deepEqual(
      advanced.topProducts.map((p: { productId: number; title: string; revenue: number; quantity: number }) => ({
        title: p.title,
        revenue: p.revenue,
        quantity: p.quantity,
      })),
      expected.topProducts,
    );
    assert.deepEqual(
      advanced.topProducts.map((p: { productId: number }) => p.productId),
      expected.topProducts.map((p) => (p.title === 'Gift Card' ? ctx.giftId : ctx.keyProductId)),
    );
    assert.equal(advanced.conversionRate, expected.conversionRate);
    assert.equal(advanced.returningCustomerRate, expected.returningCustomerRate);
    assert.equal(advanced.averageRating, Math.round((11 / 3) * 100) / 100);
    assert.deepEqual(advanced.ordersByHour, expected.ordersByHour);
    assert.deepEqual(advanced.refundsAndReplacements, {
      count: 1,
      units: 1,
      replacements: 1,
      refunds: 0,
      refundedAmount: 0,
    });

    // Spot checks of the hand computation itself, so a shared mistake cannot hide.
    assert.equal(expected.completedOrders, 7, 'ann-coupon, bob ×2, dora ×2, gus (completed 03-01 00:01), hal');
    assert.equal(expected.ordersCount, 9, 'created 03-01 … 03-07: all but ann-before, fay-after and gus-early');
    assert.equal(expected.pendingOrders, 1, 'cara-pending; cara-expired was expired by the read');
    assert.equal(expected.returningCustomerRate, 0.4286, '3 of 7: ann-coupon, bob-mixed, dora-balance');
    assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${byName('cara-expired').id}`)).status, 'expired');

    // One local day with date-times: the same bounds give the same answer.
    const day = await dashboards(
      api,
      shopId,
      `fromDate=${encodeURIComponent(new Date(localToUtc('2025-03-03T00:00', offset)).toISOString())}&toDate=2025-03-03`,
    );
    assert.deepEqual(day.general.series, [expected.series.find((s) => s.date === '2025-03-03')]);
  });
}

test('the default range is the last 30 local days ending today, and ranges are checked', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const offset = 840; // UTC+14: "today" there is often tomorrow in UTC
  assertOk(await api.put(`/self/${shop.id}/settings/timezone`, { utcTimezoneOffset: offset }));
  const base = `/self/${shop.id}/dashboard`;
  const general = assertOk(await api.get(`${base}/general`));
  const today = wallClock(Date.now(), offset).slice(0, 10);
  assert.equal(general.series.length, 30);
  assert.equal(general.series.at(-1).date, today);
  assert.equal(general.toDate, new Date(localToUtc(`${today}T00:00`, offset) + DAY - 1).toISOString());
  assert.equal(general.fromDate, new Date(localToUtc(`${general.series[0].date}T00:00`, offset)).toISOString());
  assert.deepEqual(
    { revenue: general.revenue, ordersCount: general.ordersCount, averageOrderValue: general.averageOrderValue },
    { revenue: 0, ordersCount: 0, averageOrderValue: 0 },
  );
  const advanced = assertOk(await api.get(`${base}/advanced`));
  assert.deepEqual(
    [
      advanced.revenueByGateway,
      advanced.topProducts,
      advanced.conversionRate,
      advanced.returningCustomerRate,
      advanced.averageRating,
    ],
    [[], [], 0, 0, null],
  );
  assert.deepEqual(advanced.ordersByHour, Array(24).fill(0));

  // 366 days at most; a leap year is fine, one day more is not.
  assert.equal(assertOk(await api.get(`${base}/general?fromDate=2024-01-01&toDate=2024-12-31`)).series.length, 366);
  for (const path of ['general', 'advanced']) {
    assertError(await api.get(`${base}/${path}?fromDate=2024-01-01&toDate=2025-01-01`), 400, 'validation_error');
    assertError(await api.get(`${base}/${path}?fromDate=2025-02-01&toDate=2025-01-01`), 400, 'validation_error');
    assertError(await api.get(`${base}/${path}?fromDate=2025-02-30`), 400, 'validation_error');
    assertError(await api.get(`${base}/${path}?toDate=yesterday`), 400, 'validation_error');
  }
  // Only toDate: the 30 days ending then.
  const march = assertOk(await api.get(`${base}/general?toDate=2025-03-31`));
  assert.deepEqual([march.series[0].date, march.series.at(-1).date], ['2025-03-02', '2025-03-31']);
});

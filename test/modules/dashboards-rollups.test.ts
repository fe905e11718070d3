import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { resolveAppeal } from '../../src/modules/feedbacks/service.js';
import { endUnpaid, expireOverdue } from '../../src/modules/orders/lifecycle.service.js';
import { BLOCK, bucketRanges } from '../../src/modules/rollups/rollup-rows.js';
import { rebuildRollups, rebuildStep, startRollupRebuild } from '../../src/modules/rollups/rollups.js';
import { seededRandom } from '../../src/modules/seed/demo-data.js';
import { build, type Client, owner } from '../helpers/build.js';
import { customerSession } from '../helpers/customer-session.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * The rollups behind the dashboards and the invoice list's totalCount are kept by the writes
 * themselves. Two shops in different timezones take a random but seeded mix of checkouts,
 * completions, balance purchases, expiries, cancellations, feedbacks and replacements through
 * the API, on a mocked clock that moves forward over two weeks. Every expected figure is then
 * computed here from the raw rows, never from the rollups, and the rollups kept so far must equal
 * the ones `rebuildRollups` builds from the raw rows.
 */

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

interface SimShop {
  id: number;
  offset: number;
  items: Record<'key' | 'support' | 'gift', { productId: number; productVariantId: number }>;
  giftId: number;
  invoices: string[];
  completed: string[];
  emails: Set<string>;
  /** Customer session tokens by e-mail: a buyer signs in once to pay from the balance. */
  sessions: Map<string, string>;
}

interface Sim {
  app: FastifyInstance;
  api: Client;
  db: Kysely<Database>;
  t: TestContext;
  start: number;
  now: number;
  random: () => number;
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const localToUtc = (local: string, offset: number) => Date.parse(`${local}Z`) - offset * MIN;

async function createSimShop(api: Client, offset: number): Promise<SimShop> {
  const shop = await sellingShop(api, { serials: Array.from({ length: 400 }, (_, i) => `S-${i}`), serviceStock: null });
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
          asService: { text: 'GIFT', stock: null },
        },
      ],
    }),
  );
  return {
    id: shop.shopId,
    offset,
    items: {
      key: { productId: shop.productId, productVariantId: shop.keysVariant },
      support: { productId: shop.productId, productVariantId: shop.serviceVariant },
      gift: { productId: gift.id, productVariantId: gift.variants[0].id },
    },
    giftId: gift.id,
    invoices: [],
    completed: [],
    emails: new Set(),
    sessions: new Map(),
  };
}

async function publicPost(app: FastifyInstance, url: string, body: object, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url, payload: body, headers });
  return { status: res.statusCode, body: res.json() };
}

/** One random step of the shop's life at the simulated time. */
async function step(sim: Sim, shop: SimShop): Promise<void> {
  const { app, api, random } = sim;
  const roll = random();
  if (roll < 0.36 || shop.invoices.length === 0) {
    const email = `buyer${Math.floor(random() * 12)}@example.com`;
    const parts = [];
    if (random() < 0.6) parts.push({ ...shop.items.key, quantity: 1 + Math.floor(random() * 2) });
    if (random() < 0.5) parts.push({ ...shop.items.support, quantity: 1 + Math.floor(random() * 3) });
    if (parts.length === 0 || random() < 0.3) parts.push({ ...shop.items.gift, quantity: 1 });
    const res = await publicPost(app, `/v2/public/shops/${shop.id}/invoices`, {
      customerEmail: email,
      gateway: 'tipjar',
      parts,
    });
    shop.invoices.push(assertOk(res).id);
    shop.emails.add(email);
  } else if (roll < 0.68) {
    // Mostly one of the latest: older ones have often expired (60 minutes) and answer 409.
    const unpaid = shop.invoices.filter((id) => !shop.completed.includes(id));
    const recent = random() < 0.8 && unpaid.length > 0 ? unpaid.slice(-2) : shop.invoices;
    const res = await api.post(`/self/${shop.id}/invoices/${pick(random, recent)}/process`);
    assert.ok([200, 409].includes(res.status), JSON.stringify(res.body));
    if (res.status === 200) shop.completed.push(res.body.data.id);
  } else if (roll < 0.75 && shop.emails.size > 0) {
    const email = pick(random, [...shop.emails]);
    const customer = assertOk(await api.get(`/self/${shop.id}/customers?searchString=${encodeURIComponent(email)}`))
      .items[0];
    assertOk(await api.post(`/self/${shop.id}/customers/${customer.id}/balance/add`, { amount: 100 }));
    // Paying from the balance needs the buyer signed in: one code mail per buyer and shop, from one client address per shop.
    let token = shop.sessions.get(email);
    if (!token) {
      token = await customerSession(app, shop.id, email, { remoteAddress: `10.9.0.${(shop.id % 250) + 1}` });
      shop.sessions.set(email, token);
    }
    const res = await publicPost(
      app,
      `/v2/public/shops/${shop.id}/invoices`,
      { customerEmail: email, gateway: 'balance', parts: [{ ...shop.items.gift, quantity: 1 }] },
      { authorization: `Bearer ${token}` },
    );
    shop.invoices.push(assertOk(res).id);
    shop.completed.push(res.body.data.id);
  } else if (roll < 0.85 && shop.completed.length > 0) {
    const res = await publicPost(app, `/v2/public/invoices/${pick(random, shop.completed)}/feedback`, {
      rating: 1 + Math.floor(random() * 5),
    });
    assert.ok([200, 409].includes(res.status), JSON.stringify(res.body));
  } else if (roll < 0.88 && shop.completed.length > 0) {
    // A refund of a part (balance orders are credited back, tip jar ones recorded); 409 once refunded in full.
    const res = await api.post(`/self/${shop.id}/invoices/${pick(random, shop.completed)}/refund`, {
      amount: 1,
      reason: 'simulated',
    });
    assert.ok([200, 409, 422].includes(res.status), JSON.stringify(res.body));
  } else if (roll < 0.93 && shop.completed.length > 0) {
    const invoice = assertOk(await api.get(`/self/${shop.id}/invoices/${pick(random, shop.completed)}`));
    const part =
      invoice.parts.find((p: { productId: number }) => p.productId !== shop.items.key.productId) ?? invoice.parts[0];
    const res = await api.post(`/self/${shop.id}/invoices/${invoice.id}/replacement`, {
      partInvoiceId: part.id,
      quantity: 1,
    });
    assert.ok([200, 409].includes(res.status), JSON.stringify(res.body));
  } else if (roll < 0.97) {
    await endUnpaid(app.ctx, shop.id, pick(random, shop.invoices), 'cancelled');
  } else {
    await expireOverdue(app.ctx);
  }
}

/** Moves the clock by 2 minutes to 2 hours before each step, alternating shops at random. */
async function simulate(sim: Sim, shops: SimShop[], steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) {
    sim.now += (2 + Math.floor(sim.random() * 118)) * MIN;
    sim.t.mock.timers.setTime(sim.now);
    await step(sim, pick(sim.random, shops));
  }
  // What the expiry worker would have done by now (the dashboards would do it too); then one
  // fresh unpaid order per shop.
  await expireOverdue(sim.app.ctx);
  for (const shop of shops) {
    const res = await publicPost(sim.app, `/v2/public/shops/${shop.id}/invoices`, {
      customerEmail: 'late@example.com',
      gateway: 'tipjar',
      parts: [{ ...shop.items.support, quantity: 1 }],
    });
    shop.invoices.push(assertOk(res).id);
  }
}

async function rawRows(db: Kysely<Database>, shopId: number) {
  const num = <T extends Record<string, unknown>>(rows: T[]) =>
    rows.map(
      (r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
        ) as T,
    );
  const [invoices, parts, customers, feedbacks, replacements, refunds] = await Promise.all([
    db
      .selectFrom('invoices')
      .select(['id', 'status', 'gateway', 'customer_id', 'total', 'created_at', 'completed_at'])
      .where('shop_id', '=', shopId)
      .execute(),
    db
      .selectFrom('invoice_parts')
      .select(['id', 'invoice_id', 'product_id', 'quantity', 'total', 'title'])
      .where('shop_id', '=', shopId)
      .execute(),
    db.selectFrom('customers').select(['id', 'created_at']).where('shop_id', '=', shopId).execute(),
    db.selectFrom('feedbacks').select(['rating', 'created_at']).where('shop_id', '=', shopId).execute(),
    db.selectFrom('invoice_replacements').select(['quantity', 'created_at']).where('shop_id', '=', shopId).execute(),
    db.selectFrom('invoice_refunds').select(['amount', 'created_at']).where('shop_id', '=', shopId).execute(),
  ]);
  return {
    invoices: num(invoices),
    parts: num(parts),
    customers: num(customers),
    feedbacks: num(feedbacks),
    replacements: num(replacements),
    refunds: num(refunds),
  };
}
type Raw = Awaited<ReturnType<typeof rawRows>>;

const money = (minor: number) => Number((minor / 100).toFixed(2));
const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

/** The contract's figures over [from, to], computed from the raw rows alone. */
function expectedFigures(raw: Raw, offset: number, from: number, to: number) {
  const offsetMs = offset * MIN;
  const inRange = (ms: number | null) => ms !== null && ms >= from && ms <= to;
  const dayOf = (ms: number) => Math.floor((ms + offsetMs) / DAY);
  const completed = raw.invoices.filter((i) => inRange(i.completed_at));
  const created = raw.invoices.filter((i) => inRange(i.created_at));
  const completedIds = new Set(completed.map((i) => i.id));
  const soldParts = raw.parts.filter((p) => completedIds.has(p.invoice_id));
  const revenue = completed.reduce((s, i) => s + i.total, 0);

  const series = new Map<number, { revenue: number; orders: number }>();
  for (let d = dayOf(from); d <= dayOf(to); d++) series.set(d, { revenue: 0, orders: 0 });
  for (const i of completed) series.get(dayOf(i.completed_at!))!.revenue += i.total;
  for (const i of created) series.get(dayOf(i.created_at))!.orders += 1;

  const gateways = new Map<string, { revenue: number; orders: number }>();
  for (const i of completed) {
    const g = gateways.get(i.gateway) ?? { revenue: 0, orders: 0 };
    gateways.set(i.gateway, { revenue: g.revenue + i.total, orders: g.orders + 1 });
  }
  const products = new Map<number, { revenue: number; quantity: number }>();
  for (const p of soldParts) {
    const e = products.get(p.product_id) ?? { revenue: 0, quantity: 0 };
    products.set(p.product_id, { revenue: e.revenue + p.total, quantity: e.quantity + p.quantity });
  }
  // Titled as sold in the latest order (highest part id) completed by the end of the range.
  const completedByEnd = new Set(
    raw.invoices.filter((i) => i.completed_at !== null && i.completed_at <= to).map((i) => i.id),
  );
  const titleOf = (productId: number) =>
    raw.parts
      .filter((p) => p.product_id === productId && completedByEnd.has(p.invoice_id))
      .sort((a, b) => b.id - a.id)[0]!.title;
  // A repeat purchase: the customer had completed another order before this one.
  const repeats = completed.filter((i) =>
    raw.invoices.some(
      (j) =>
        j.id !== i.id && j.customer_id === i.customer_id && j.completed_at !== null && j.completed_at < i.completed_at!,
    ),
  );
  const hours = Array.from({ length: 24 }, () => 0);
  for (const i of completed) hours[Math.floor((i.completed_at! + offsetMs) / HOUR) % 24]! += 1;
  const rated = raw.feedbacks.filter((f) => inRange(f.created_at));
  const replaced = raw.replacements.filter((r) => inRange(r.created_at));
  const refunded = raw.refunds.filter((r) => inRange(r.created_at));
  const n = completed.length;
  return {
    general: {
      fromDate: new Date(from).toISOString(),
      toDate: new Date(to).toISOString(),
      currency: 'USD',
      rollupsRebuilding: false,
      revenue: money(revenue),
      ordersCount: created.length,
      completedOrders: n,
      pendingOrders: created.filter((i) => i.status === 'pending').length,
      productsSold: soldParts.reduce((s, p) => s + p.quantity, 0),
      newCustomers: raw.customers.filter((c) => inRange(c.created_at)).length,
      averageOrderValue: n === 0 ? 0 : money(Number((BigInt(revenue) * 2n + BigInt(n)) / (2n * BigInt(n)))),
      series: [...series].map(([day, v]) => ({
        date: new Date(day * DAY).toISOString().slice(0, 10),
        revenue: money(v.revenue),
        orders: v.orders,
      })),
    },
    advanced: {
      fromDate: new Date(from).toISOString(),
      toDate: new Date(to).toISOString(),
      currency: 'USD',
      rollupsRebuilding: false,
      revenueByGateway: [...gateways]
        .sort(([ga, a], [gb, b]) => b.revenue - a.revenue || (ga < gb ? -1 : 1))
        .map(([gateway, v]) => ({ gateway, revenue: money(v.revenue), orders: v.orders })),
      topProducts: [...products]
        .sort(([pa, a], [pb, b]) => b.revenue - a.revenue || b.quantity - a.quantity || pa - pb)
        .slice(0, 10)
        .map(([productId, v]) => ({
          productId,
          title: titleOf(productId),
          revenue: money(v.revenue),
          quantity: v.quantity,
        })),
      conversionRate: rate(created.filter((i) => i.status === 'completed').length, created.length),
      returningCustomerRate: rate(repeats.length, n),
      averageRating:
        rated.length === 0 ? null : Math.round((rated.reduce((s, f) => s + f.rating, 0) / rated.length) * 100) / 100,
      ordersByHour: hours,
      refundsAndReplacements: {
        count: replaced.length + refunded.length,
        units: replaced.reduce((s, r) => s + r.quantity, 0),
        replacements: replaced.length,
        refunds: refunded.length,
        refundedAmount: money(refunded.reduce((s, r) => s + r.amount, 0)),
      },
    },
  };
}

/** Every non-zero rollup row of a shop's live generation, in a stable order. */
async function rollupRows(db: Kysely<Database>, shopId: number) {
  const state = await db.selectFrom('rollup_state').selectAll().where('shop_id', '=', shopId).executeTakeFirstOrThrow();
  const tables = [
    'rollup_totals',
    'rollup_products',
    'rollup_hours',
    'rollup_gateways',
    'rollup_invoice_counts',
  ] as const;
  const result: Record<string, unknown[]> = {};
  for (const table of tables) {
    const rows = (await (db as Kysely<any>)
      .selectFrom(table)
      .selectAll()
      .where('shop_id', '=', shopId)
      .where('generation', '=', state.generation)
      .execute()) as Record<string, unknown>[];
    result[table] = rows
      .map((r) =>
        Object.fromEntries(
          Object.entries(r)
            .filter(([k]) => k !== 'generation')
            .map(([k, v]) => [
              k,
              typeof v === 'number' ||
              typeof v === 'bigint' ||
              (/^-?\d+$/.test(String(v)) && k !== 'gateway' && k !== 'status')
                ? Number(v)
                : v,
            ]),
        ),
      )
      .filter((r) =>
        Object.entries(r).some(
          ([k, v]) => !['shop_id', 'level', 'bucket', 'product_id', 'hour', 'gateway', 'status'].includes(k) && v !== 0,
        ),
      )
      .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return result;
}

async function assertRollupsMatchRebuild(db: Kysely<Database>, shopId: number, when: string) {
  const kept = await rollupRows(db, shopId);
  assert.ok((kept.rollup_totals?.length ?? 0) > 0, `${when}: the shop has rollups`);
  // Small batches: the rebuild takes many transactions, as it would on a large shop.
  await rebuildRollups(db, shopId, 7);
  assert.deepEqual(await rollupRows(db, shopId), kept, `${when}: rollups kept by the writes equal the rebuilt ones`);
}

/** Local wall-clock strings of a shop, relative to a local day number. */
const localDate = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

async function assertDashboards(sim: Sim, shop: SimShop, when: string) {
  const raw = await rawRows(sim.db, shop.id);
  const offsetMs = shop.offset * MIN;
  const today = Math.floor((sim.now + offsetMs) / DAY);
  const start = Math.floor((sim.start + offsetMs) / DAY);
  const local = (day: number, time: string) => `${localDate(day)}T${time}`;
  const ranges: { query: string; from: number; to: number }[] = [
    // The default: the last 30 local days ending today.
    { query: '', from: (today - 29) * DAY - offsetMs, to: (today + 1) * DAY - offsetMs - 1 },
    // Whole days.
    {
      query: `fromDate=${localDate(start + 2)}&toDate=${localDate(start + 9)}`,
      from: (start + 2) * DAY - offsetMs,
      to: (start + 10) * DAY - offsetMs - 1,
    },
    {
      query: `fromDate=${localDate(start + 5)}&toDate=${localDate(start + 5)}`,
      from: (start + 5) * DAY - offsetMs,
      to: (start + 6) * DAY - offsetMs - 1,
    },
    // Date-times that cut local days in half, in the shop's timezone or in UTC.
    {
      query: `fromDate=${local(start + 1, '13:37')}&toDate=${local(start + 8, '08:15')}`,
      from: localToUtc(local(start + 1, '13:37'), shop.offset),
      to: localToUtc(local(start + 8, '08:15'), shop.offset),
    },
    {
      query: `fromDate=${local(start + 4, '02:00')}&toDate=${local(start + 4, '20:30')}`,
      from: localToUtc(local(start + 4, '02:00'), shop.offset),
      to: localToUtc(local(start + 4, '20:30'), shop.offset),
    },
    {
      query: `fromDate=${local(start + 6, '18:00')}&toDate=${local(start + 7, '06:00')}`,
      from: localToUtc(local(start + 6, '18:00'), shop.offset),
      to: localToUtc(local(start + 7, '06:00'), shop.offset),
    },
    {
      query: `fromDate=${local(start + 3, '00:00')}&toDate=${local(start + 11, '12:00')}`,
      from: localToUtc(local(start + 3, '00:00'), shop.offset),
      to: localToUtc(local(start + 11, '12:00'), shop.offset),
    },
    {
      query: `fromDate=${encodeURIComponent(new Date(Date.UTC(2025, 5, 3, 9, 10)).toISOString())}&toDate=${localDate(start + 12)}`,
      from: Date.UTC(2025, 5, 3, 9, 10),
      to: (start + 13) * DAY - offsetMs - 1,
    },
  ];
  for (const range of ranges) {
    const expected = expectedFigures(raw, shop.offset, range.from, range.to);
    const general = assertOk(await sim.api.get(`/self/${shop.id}/dashboard/general?${range.query}`));
    const advanced = assertOk(await sim.api.get(`/self/${shop.id}/dashboard/advanced?${range.query}`));
    assert.deepEqual(general, expected.general, `${when}: general, ${range.query || 'default range'}`);
    assert.deepEqual(advanced, expected.advanced, `${when}: advanced, ${range.query || 'default range'}`);
  }
}

/** The simulation exercised every kind of write. */
async function assertVariety(db: Kysely<Database>, shopId: number) {
  const raw = await rawRows(db, shopId);
  const statuses = new Set(raw.invoices.map((i) => i.status));
  assert.deepEqual([...statuses].sort(), ['cancelled', 'completed', 'expired', 'pending'], 'invoices in every status');
  assert.ok(
    raw.feedbacks.length > 3 &&
      raw.replacements.length > 1 &&
      raw.refunds.length > 0 &&
      raw.invoices.some((i) => i.gateway === 'balance'),
    'feedbacks, replacements, refunds, balance orders',
  );
}

async function assertInvoiceCounts(sim: Sim, shop: SimShop, when: string) {
  const offsetMs = shop.offset * MIN;
  const start = Math.floor((sim.start + offsetMs) / DAY);
  const local = (day: number, time: string) => `${localDate(day)}T${time}`;
  const cases: { query: string; status?: string; gateway?: string; from?: number; to?: number }[] = [
    { query: '' },
    { query: 'status=pending', status: 'pending' },
    { query: 'status=completed', status: 'completed' },
    { query: 'status=expired', status: 'expired' },
    { query: 'status=cancelled', status: 'cancelled' },
    { query: 'gateway=balance', gateway: 'balance' },
    { query: 'status=completed&gateway=tipjar', status: 'completed', gateway: 'tipjar' },
    {
      query: `status=completed&gateway=tipjar&fromDate=${localDate(start + 3)}&toDate=${localDate(start + 9)}`,
      status: 'completed',
      gateway: 'tipjar',
      from: (start + 3) * DAY - offsetMs,
      to: (start + 10) * DAY - offsetMs - 1,
    },
    {
      query: `status=expired&fromDate=${local(start + 2, '07:45')}&toDate=${local(start + 10, '16:20')}`,
      status: 'expired',
      from: localToUtc(local(start + 2, '07:45'), shop.offset),
      to: localToUtc(local(start + 10, '16:20'), shop.offset),
    },
    {
      query: `gateway=tipjar&fromDate=${local(start + 5, '03:00')}&toDate=${local(start + 5, '21:00')}`,
      gateway: 'tipjar',
      from: localToUtc(local(start + 5, '03:00'), shop.offset),
      to: localToUtc(local(start + 5, '21:00'), shop.offset),
    },
    { query: `fromDate=${local(start + 6, '12:00')}`, from: localToUtc(local(start + 6, '12:00'), shop.offset) },
    { query: `status=pending&toDate=${localDate(start + 8)}`, status: 'pending', to: (start + 9) * DAY - offsetMs - 1 },
  ];
  for (const c of cases) {
    let count = sim.db
      .selectFrom('invoices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('shop_id', '=', shop.id);
    if (c.status) count = count.where('status', '=', c.status as 'pending');
    if (c.gateway) count = count.where('gateway', '=', c.gateway);
    if (c.from !== undefined) count = count.where('created_at', '>=', c.from);
    if (c.to !== undefined) count = count.where('created_at', '<=', c.to);
    const exact = Number((await count.executeTakeFirstOrThrow()).n);
    const first = assertOk(await sim.api.get(`/self/${shop.id}/invoices?pageSize=3&${c.query}`));
    assert.equal(first.totalCount, exact, `${when}: totalCount of ${c.query || 'every invoice'}`);
    assert.equal(first.totalPages, Math.ceil(exact / 3));
    if (first.nextCursor) {
      const next = assertOk(
        await sim.api.get(`/self/${shop.id}/invoices?pageSize=3&cursor=${first.nextCursor}&${c.query}`),
      );
      assert.equal(next.totalCount, exact, `${when}: the same totalCount after the cursor`);
      const shown = new Set(first.items.map((i: { id: string }) => i.id));
      assert.ok(next.items.every((i: { id: string }) => !shown.has(i.id)));
    }
  }
}

test('rollups kept by the writes give the figures of the raw rows, in two timezones, across a timezone change', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const db = app.db.kysely;
  const a = await createSimShop(api, 330);
  const b = await createSimShop(api, -300);
  const sim: Sim = {
    app,
    api,
    db,
    t,
    start: Date.UTC(2025, 5, 1, 2, 0),
    now: Date.UTC(2025, 5, 1, 2, 0),
    random: seededRandom(19),
  };
  t.mock.timers.enable({ apis: ['Date'], now: sim.now });

  await simulate(sim, [a, b], 110);
  // A product renamed mid-way: later sales carry the new title.
  await db.updateTable('products').set({ title: 'Gift Card (new)' }).where('id', '=', a.giftId).execute();
  await simulate(sim, [a, b], 110);

  for (const shop of [a, b]) await assertRollupsMatchRebuild(db, shop.id, `shop ${shop.id}`);
  for (const shop of [a, b]) {
    await assertVariety(db, shop.id);
    await assertDashboards(sim, shop, `shop ${shop.id}`);
    await assertInvoiceCounts(sim, shop, `shop ${shop.id}`);
  }

  // A timezone change rebuilds the shop's rollups in its new local days, in the background; the
  // other shop's stay.
  const otherBefore = await rollupRows(db, b.id);
  assertOk(await api.put(`/self/${a.id}/settings/timezone`, { utcTimezoneOffset: -420 }));
  a.offset = -420;
  await rebuildSettled(db, a.id);
  assert.deepEqual(await rollupRows(db, b.id), otherBefore);
  await assertDashboards(sim, a, 'after the timezone change');
  await assertInvoiceCounts(sim, a, 'after the timezone change');

  // Writes after the change keep the rollups in the new local days.
  await simulate(sim, [a, b], 40);
  for (const shop of [a, b]) await assertRollupsMatchRebuild(db, shop.id, `shop ${shop.id}, later`);
  await assertDashboards(sim, a, 'writes after the timezone change');
  await assertDashboards(sim, b, 'the other shop, later');
});

test('a shop reads none of another shop’s rollups', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const db = app.db.kysely;
  const busy = await createSimShop(api, 0);
  const quiet = await createSimShop(api, 0);
  const sim: Sim = {
    app,
    api,
    db,
    t,
    start: Date.UTC(2025, 5, 1, 2, 0),
    now: Date.UTC(2025, 5, 1, 2, 0),
    random: seededRandom(11),
  };
  t.mock.timers.enable({ apis: ['Date'], now: sim.now });
  await simulate(sim, [busy], 40);
  const general = assertOk(await api.get(`/self/${quiet.id}/dashboard/general`));
  assert.deepEqual([general.revenue, general.ordersCount, general.completedOrders, general.newCustomers], [0, 0, 0, 0]);
  assert.ok(general.series.every((d: { revenue: number; orders: number }) => d.revenue === 0 && d.orders === 0));
  const advanced = assertOk(await api.get(`/self/${quiet.id}/dashboard/advanced`));
  assert.deepEqual([advanced.revenueByGateway, advanced.topProducts, advanced.averageRating], [[], [], null]);
  assert.equal(assertOk(await api.get(`/self/${quiet.id}/invoices?status=completed`)).totalCount, 0);
  assert.equal(assertOk(await api.get(`/self/${quiet.id}/invoices`)).totalCount, 0);
  // The busy shop's figures are its own.
  await assertDashboards(sim, busy, 'busy shop');
});

test('concurrent checkouts, completions and feedbacks keep the rollups exact', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const db = app.db.kysely;
  const shop = await createSimShop(api, 60);
  const emails = ['one@example.com', 'two@example.com', 'three@example.com'];
  const placed = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      publicPost(app, `/v2/public/shops/${shop.id}/invoices`, {
        customerEmail: emails[i % 3],
        gateway: 'tipjar',
        parts: [{ ...shop.items.support, quantity: 1 + (i % 2) }],
      }),
    ),
  );
  const ids: string[] = placed.map((res) => assertOk(res).id);
  await Promise.all(ids.slice(0, 20).map((id) => api.post(`/self/${shop.id}/invoices/${id}/process`).then(assertOk)));
  await Promise.all([
    ...ids
      .slice(0, 10)
      .map((id, i) => publicPost(app, `/v2/public/invoices/${id}/feedback`, { rating: 1 + (i % 5) }).then(assertOk)),
    ...ids.slice(20, 22).map((id) => endUnpaid(app.ctx, shop.id, id, 'cancelled')),
  ]);
  // Exactly one first purchase per customer, however the completions interleaved.
  const firsts = await db
    .selectFrom('invoices')
    .select((eb) => ['customer_id', eb.fn.countAll<number>().as('n')])
    .where('shop_id', '=', shop.id)
    .where('status', '=', 'completed')
    .where('repeat_purchase', '=', 0)
    .groupBy('customer_id')
    .execute();
  assert.deepEqual(
    firsts.map((f) => Number(f.n)),
    [1, 1, 1],
  );
  const advanced = assertOk(await api.get(`/self/${shop.id}/dashboard/advanced`));
  assert.equal(advanced.returningCustomerRate, Math.round((17 / 20) * 10_000) / 10_000);
  const general = assertOk(await api.get(`/self/${shop.id}/dashboard/general`));
  assert.deepEqual(
    [general.ordersCount, general.completedOrders, general.pendingOrders, general.newCustomers],
    [24, 20, 2, 3],
  );
  assert.equal(assertOk(await api.get(`/self/${shop.id}/invoices?status=cancelled`)).totalCount, 2);
  await assertRollupsMatchRebuild(db, shop.id, 'after concurrent writes');
});

/** Waits (bounded) until no rebuild of the shop runs and its old rows are cleared. */
async function rebuildSettled(db: Kysely<Database>, shopId: number) {
  await waitUntil(async () => {
    const state = await db
      .selectFrom('rollup_state')
      .selectAll()
      .where('shop_id', '=', shopId)
      .executeTakeFirstOrThrow();
    if (state.rebuild_offset_minutes !== null) return false;
    const stale = await db
      .selectFrom('rollup_totals')
      .select('bucket')
      .where('shop_id', '=', shopId)
      .where('generation', '<>', state.generation)
      .executeTakeFirst();
    return stale === undefined;
  }, 'the rebuild to end');
}

test('a year of days is summed from at most 31 buckets, each day exactly once', () => {
  const random = seededRandom(3);
  for (let i = 0; i < 2000; i++) {
    const first = Math.floor(random() * 40_000);
    const last = first + Math.floor(random() * (i % 2 ? 400 : 5000));
    const ranges = bucketRanges(first, last);
    const days = ranges.flatMap((r) =>
      Array.from({ length: r.hi - r.lo + 1 }, (_, k) => {
        const size = BLOCK ** r.level;
        return Array.from({ length: size }, (_, d) => (r.lo + k) * size + d);
      }).flat(),
    );
    assert.equal(days.length, last - first + 1, `${first}…${last}`);
    assert.equal(new Set(days).size, days.length);
    assert.equal(Math.min(...days), first);
    assert.equal(Math.max(...days), last);
    const buckets = ranges.reduce((n, r) => n + r.hi - r.lo + 1, 0);
    // Blocks of 8: at most 7 days and 7 blocks of 8 days per end, and the 64-day blocks between.
    if (last - first < 366) assert.ok(buckets <= 31, `${buckets} buckets for ${last - first + 1} days`);
  }
});

test('a rebuild in small batches loses and doubles no write made meanwhile', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const db = app.db.kysely;
  const shop = await createSimShop(api, 90);
  const sim: Sim = {
    app,
    api,
    db,
    t,
    start: Date.UTC(2025, 5, 1, 2, 0),
    now: Date.UTC(2025, 5, 1, 2, 0),
    random: seededRandom(5),
  };
  t.mock.timers.enable({ apis: ['Date'], now: sim.now });
  await simulate(sim, [shop], 80);
  // The rebuild a timezone change starts, driven here by hand between writes: each step is one
  // transaction of 4 invoices (or 4 stale rows per table).
  await db.updateTable('shops').set({ utc_offset_minutes: -180 }).where('id', '=', shop.id).execute();
  await db.transaction().execute((trx) => startRollupRebuild(trx, shop.id, { offsetMinutes: -180, timezone: null }));
  shop.offset = -180;
  let steps = 0;
  let rebuilding = true;
  let sawRebuilding = false;
  while (rebuilding) {
    rebuilding = await rebuildStep(db, shop.id, 4);
    steps++;
    const general = assertOk(await api.get(`/self/${shop.id}/dashboard/general`));
    sawRebuilding ||= general.rollupsRebuilding;
    // Writes between the batches: on invoices already folded into the new rollups and on ones not yet.
    for (let i = 0; i < 2; i++) {
      sim.now += (2 + Math.floor(sim.random() * 60)) * MIN;
      t.mock.timers.setTime(sim.now);
      await step(sim, shop);
    }
  }
  assert.ok(steps > 10, `the rebuild took ${steps} steps`);
  assert.ok(sawRebuilding, 'the dashboards said the rollups were being rebuilt');
  const state = await db
    .selectFrom('rollup_state')
    .selectAll()
    .where('shop_id', '=', shop.id)
    .executeTakeFirstOrThrow();
  assert.deepEqual([state.utc_offset_minutes, state.rebuild_offset_minutes, state.rebuild_cursor], [-180, null, null]);
  assert.equal(assertOk(await api.get(`/self/${shop.id}/dashboard/general`)).rollupsRebuilding, false);
  await assertRollupsMatchRebuild(db, shop.id, 'after a rebuild with writes in between');
  await assertDashboards(sim, shop, 'after a rebuild with writes in between');
  await assertInvoiceCounts(sim, shop, 'after a rebuild with writes in between');
});

test('an accepted appeal takes the feedback out of the rollups', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const db = app.db.kysely;
  const shop = await createSimShop(api, 0);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await publicPost(app, `/v2/public/shops/${shop.id}/invoices`, {
      customerEmail: `r${i}@example.com`,
      gateway: 'tipjar',
      parts: [{ ...shop.items.support, quantity: 1 }],
    });
    ids.push(assertOk(res).id);
    assertOk(await api.post(`/self/${shop.id}/invoices/${ids[i]}/process`));
  }
  const ratings = [1, 4, 5];
  const feedbackIds: number[] = [];
  for (let i = 0; i < 3; i++)
    feedbackIds.push(
      assertOk(await publicPost(app, `/v2/public/invoices/${ids[i]}/feedback`, { rating: ratings[i] })).id,
    );
  assert.equal(assertOk(await api.get(`/self/${shop.id}/dashboard/advanced`)).averageRating, 3.33);
  const appeal = async () => {
    const res = assertOk(
      await api.post(`/self/${shop.id}/feedbacks/${feedbackIds[0]}/appeal`, {
        reason: 'spam',
        description: 'Not a buyer',
      }),
    );
    return res;
  };
  await appeal();
  const [open] = await db.selectFrom('feedback_appeals').select('id').where('shop_id', '=', shop.id).execute();
  await resolveAppeal(app.ctx, open!.id, 'accepted');
  assert.equal(assertOk(await api.get(`/self/${shop.id}/dashboard/advanced`)).averageRating, 4.5);
  const totals = await db
    .selectFrom('rollup_totals')
    .select((eb) => [eb.fn.sum<number>('feedbacks').as('n'), eb.fn.sum<number>('rating_sum').as('sum')])
    .where('shop_id', '=', shop.id)
    .where('level', '=', 0)
    .executeTakeFirstOrThrow();
  assert.deepEqual([Number(totals.n), Number(totals.sum)], [2, 9], 'the rollups no longer count it');
  await assertRollupsMatchRebuild(db, shop.id, 'after an accepted appeal');
});

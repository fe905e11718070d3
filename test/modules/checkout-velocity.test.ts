import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, onEnd, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { startProviderDouble } from '../helpers/payment-providers.js';

/**
 * Issue 36, item 7 (velocity): card testing is many card checkouts from one client. A client
 * (its IPv4 address or IPv6 /64, or its e-mail address) may start `hostedCheckoutsPerHour` card or
 * crypto checkouts per hour, counted from its orders of the last hour whatever became of them;
 * past it, 429 with Retry-After (src/modules/orders/client-holds.ts). Pending-order and unit limits
 * are off here so that only the velocity limit speaks.
 */

const MINUTE = 60_000;

async function setup(t: TestContext) {
  const double = await startProviderDouble();
  onEnd(t, () => double.close());
  const clock = new TestClock();
  const app = await build(
    t,
    {
      TRUST_PROXY: 'true',
      RATE_LIMIT_PUBLIC_MAX: '0',
      RATE_LIMIT_OWNER_MAX: '0',
      PAYMENTS_STRIPE_API_URL: double.url,
      PAYMENTS_CRYPTO_API_URL: double.url,
      PAYMENTS_TIMEOUT_MS: '5000',
    },
    { clock },
  );
  const api = await owner(app);
  const shop = await createShop(api, 'Card Shop', { protection: 'defaults' });
  const shopId = shop.id;
  assertOk(
    await api.put(`/self/${shopId}/settings/protection`, { pendingPerClient: 0, unitsPerClient: 0, challenge: 'off' }),
  );
  assertOk(await api.put(`/self/${shopId}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
      webhookSecret: 'whsec_test_velocity_0001',
    }),
  );
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cryptocommerce`, {
      enabled: true,
      apiKey: 'cc-api-key-velocity',
      webhookSecret: 'cc-webhook-velocity',
    }),
  );
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Gift Card',
      description: 'Small amounts, as card testers like them',
      variants: [
        {
          title: '1 USD',
          priceDetails: { amount: 1 },
          productType: 'service',
          asService: { text: 'Code', stock: null },
        },
      ],
    }),
  );
  const variantId = product.variants[0].id as number;
  const buy = async (ip: string, email: string, gateway = 'cardconnect') => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': ip },
      payload: {
        customerEmail: email,
        gateway,
        parts: [{ productId: product.id, productVariantId: variantId, quantity: 1 }],
      },
    });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };
  return { app, api, clock, double, shopId, buy };
}

test('a client starts at most hostedCheckoutsPerHour card or crypto checkouts an hour; then 429 with Retry-After', async (t) => {
  const { buy, clock } = await setup(t);
  for (let i = 0; i < 10; i++) {
    const res = await buy('198.51.100.70', `tester.${i}@example.com`, i % 2 === 0 ? 'cardconnect' : 'cryptocommerce');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    clock.advance(MINUTE);
  }
  const eleventh = await buy('198.51.100.70', 'tester.10@example.com');
  assertError(eleventh, 429, 'rate_limited');
  assert.match(eleventh.body.message, /10 per client per hour \(hostedCheckoutsPerHour\)/);
  // The first was 10 minutes ago: it leaves the hour in 50.
  assert.equal(eleventh.headers['retry-after'], String(50 * 60));
  assert.equal((await buy('198.51.100.71', 'honest@example.com')).status, 200, 'another client pays by card');
  assert.equal(
    (await buy('198.51.100.70', 'tester.10@example.com', 'tipjar')).status,
    200,
    'manual methods are not counted',
  );
  clock.advance(50 * MINUTE);
  assert.equal((await buy('198.51.100.70', 'tester.10@example.com')).status, 200, 'an hour after the first');
  assertError(await buy('198.51.100.70', 'tester.11@example.com'), 429, 'rate_limited');
});

test('card checkouts count by e-mail address across addresses, and by IPv6 /64', async (t) => {
  const { buy } = await setup(t);
  for (let i = 0; i < 10; i++) assert.equal((await buy(`192.0.2.${i + 1}`, 'Carder@example.com')).status, 200);
  assertError(await buy('192.0.2.200', 'carder@example.com'), 429, 'rate_limited');
  for (let i = 0; i < 10; i++) assert.equal((await buy(`2001:db8:77:1::${i + 1}`, `v6.${i}@example.com`)).status, 200);
  assertError(await buy('2001:db8:77:1:abcd::1', 'v6.new@example.com'), 429, 'rate_limited');
});

test('an attempt counts even when the provider refused it (the 502s of card testing)', async (t) => {
  const { buy, double } = await setup(t);
  // 400 is not retried by the Stripe library.
  double.failNext('/v1/checkout/sessions', 400, 'Your card was declined', 10);
  for (let i = 0; i < 10; i++) {
    const res = await buy('198.51.100.80', `declined.${i}@example.com`);
    assertError(res, 502, 'payment_provider_error');
  }
  const next = await buy('198.51.100.80', 'declined.10@example.com');
  assertError(next, 429, 'rate_limited');
  assert.ok(Number(next.headers['retry-after']) > 0);
});

test('parallel card checkouts of one client never pass hostedCheckoutsPerHour', async (t) => {
  const { buy, app, shopId } = await setup(t);
  const results = await Promise.all(
    Array.from({ length: 16 }, (_, i) => buy('198.51.100.90', `burst.${i}@example.com`)),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 10, `statuses ${statuses.join(',')}`);
  assert.deepEqual(new Set(statuses.filter((s) => s !== 200)), new Set([429]));
  const placed = await app.db.kysely
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('shop_id', '=', shopId)
    .where('client_net', '=', '198.51.100.90')
    .executeTakeFirstOrThrow();
  assert.equal(Number(placed.n), 10);
});

test('a checkout refused with 429 is not kept under its Idempotency-Key: the retry after Retry-After acts', async (t) => {
  const { app, buy, clock, shopId } = await setup(t);
  for (let i = 0; i < 10; i++) assert.equal((await buy('198.51.100.95', `again.${i}@example.com`)).status, 200);
  const product = (
    await app.db.kysely.selectFrom('products').select('id').where('shop_id', '=', shopId).executeTakeFirstOrThrow()
  ).id;
  const variant = (
    await app.db.kysely
      .selectFrom('product_variants')
      .select('id')
      .where('product_id', '=', product)
      .executeTakeFirstOrThrow()
  ).id;
  const keyed = () =>
    app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '198.51.100.95', 'idempotency-key': 'velocity-retry-0001' },
      payload: {
        customerEmail: 'again.10@example.com',
        gateway: 'cardconnect',
        parts: [{ productId: product, productVariantId: variant, quantity: 1 }],
      },
    });
  const refused = await keyed();
  assert.equal(refused.statusCode, 429);
  clock.advance(Number(refused.headers['retry-after']) * 1000);
  const retried = await keyed();
  assert.equal(retried.statusCode, 200, retried.body);
});

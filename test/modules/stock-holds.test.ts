import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { CALLBACK_GRACE_MS } from '../../src/modules/payments/payment.service.js';
import { build, onEnd, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { startProviderDouble } from '../helpers/payment-providers.js';
import { openForm, postForm } from '../helpers/web-forms.js';

/**
 * Issue 36, M1: one unauthenticated client could hold a shop's whole stock with unpaid orders.
 * Now a client (its IPv4 address or IPv6 /64, its e-mail address) holds at most `unitsPerClient`
 * units of a product and `pendingPerClient` orders unpaid, and a card or crypto order holds its
 * stock `holdMinutesHosted` (src/modules/orders/client-holds.ts). Clients are told apart by
 * X-Forwarded-For behind TRUST_PROXY; time moves on the test clock.
 */

const MINUTE = 60_000;

async function setup(t: TestContext, protection: Record<string, unknown> = {}) {
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
  const shop = await createShop(api, 'Held Shop', { protection: 'defaults' });
  const shopId = shop.id;
  // The defaults of the holds, without the proof-of-work challenge, which a client placing this many
  // orders would meet first (test/modules/challenge.test.ts is about it).
  assertOk(await api.put(`/self/${shopId}/settings/protection`, { challenge: 'off', ...protection }));
  assertOk(await api.put(`/self/${shopId}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
      webhookSecret: 'whsec_test_holds_0001',
    }),
  );
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cryptocommerce`, {
      enabled: true,
      apiKey: 'cc-api-key-holds',
      webhookSecret: 'cc-webhook-holds',
    }),
  );
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Concert Ticket',
      description: 'One seat',
      variants: [
        {
          title: 'Seat',
          priceDetails: { amount: 20 },
          productType: 'service',
          asService: { text: 'Your seat', stock: 30 },
          maxAmount: 30,
        },
      ],
    }),
  );
  const variantId = product.variants[0].id as number;
  /** A checkout from the client at `ip` (X-Forwarded-For), as the public API answers it. */
  const buy = async (ip: string, email: string, quantity = 1, gateway = 'tipjar') => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': ip },
      payload: {
        customerEmail: email,
        gateway,
        parts: [{ productId: product.id, productVariantId: variantId, quantity }],
      },
    });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };
  const stock = async () => assertOk(await api.get(`/self/${shopId}/v2/products/${product.id}`)).variants[0].stock;
  const invoice = async (id: string) => assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
  return { app, api, clock, double, shopId, buy, stock, invoice };
}

test('one client cannot take the whole stock: the 11th unit is refused (422 naming unitsPerClient), another client still buys', async (t) => {
  const { buy, stock } = await setup(t);
  assert.equal((await buy('198.51.100.7', 'hoarder@example.com', 6)).status, 200);
  // Another e-mail address from the same address is the same client.
  const eleventh = await buy('198.51.100.7', 'hoarder.two@example.com', 5);
  assertError(eleventh, 422, 'unprocessable');
  assert.match(
    eleventh.body.errors[0],
    /^parts\[0\]\.quantity: .*at most 10 units.*unitsPerClient.*6 are held already/,
  );
  assert.equal((await buy('198.51.100.7', 'hoarder.two@example.com', 4)).status, 200, 'up to the limit is fine');
  // One order of more than the limit is refused from a client with nothing held.
  const whole = await buy('198.51.100.8', 'fresh@example.com', 11);
  assertError(whole, 422, 'unprocessable');
  assert.doesNotMatch(whole.body.errors[0], /held already/);
  assert.equal(await stock(), 20, 'the refusals held nothing');
  // Real buyers keep buying.
  assert.equal((await buy('203.0.113.20', 'real.buyer@example.com', 10)).status, 200);
  assert.equal(await stock(), 10);
});

test('a client may have pendingPerClient unpaid orders; past it 429 with Retry-After until its earliest order expires', async (t) => {
  const { buy, clock } = await setup(t);
  for (let i = 1; i <= 3; i++) {
    assert.equal((await buy('198.51.100.9', `many.${i}@example.com`)).status, 200);
    clock.advance(MINUTE);
  }
  const fourth = await buy('198.51.100.9', 'many.4@example.com');
  assertError(fourth, 429, 'rate_limited');
  assert.match(fourth.body.message, /3 per client \(pendingPerClient\)/);
  // A tip jar order holds the invoice lifetime (60 min): the first expires 57 minutes from now.
  assert.equal(fourth.headers['retry-after'], String(57 * 60));
  assert.equal((await buy('203.0.113.21', 'other@example.com')).status, 200, 'another client buys');
  clock.advance(57 * MINUTE);
  assert.equal((await buy('198.51.100.9', 'many.4@example.com')).status, 200, 'once the first expired');
});

test('an IPv6 /64 is one client; an e-mail address is one client across addresses', async (t) => {
  const { buy } = await setup(t);
  for (let i = 1; i <= 3; i++) assert.equal((await buy(`2001:db8:36:1::${i}`, `six.${i}@example.com`)).status, 200);
  assertError(await buy('2001:db8:36:1:ffff::9', 'six.4@example.com'), 429, 'rate_limited');
  assert.equal((await buy('2001:db8:36:2::1', 'six.5@example.com')).status, 200, 'the next /64 is another client');

  for (let i = 1; i <= 3; i++) assert.equal((await buy(`192.0.2.${i}`, 'Same.Buyer@example.com')).status, 200);
  assertError(await buy('192.0.2.99', 'same.buyer@example.com'), 429, 'rate_limited');
  // Units count by e-mail too: 8 units ordered from one address, 3 more from another are 11.
  const units = await buy('192.0.2.100', 'units.mail@example.com', 8);
  assert.equal(units.status, 200);
  assertError(await buy('192.0.2.101', 'units.mail@example.com', 3), 422, 'unprocessable');
});

test('a card or crypto order holds its stock holdMinutesHosted (its page closes then); a manual order the invoice lifetime', async (t) => {
  const { app, api, shopId, buy, clock, stock, invoice, double } = await setup(t, { pendingPerClient: 0 });
  const start = clock.now();
  const card = await buy('198.51.100.30', 'card@example.com', 2, 'cardconnect');
  assert.equal(card.status, 200, JSON.stringify(card.body));
  const crypto = await buy('198.51.100.31', 'crypto@example.com', 2, 'cryptocommerce');
  assert.equal(crypto.status, 200, JSON.stringify(crypto.body));
  const manual = await buy('198.51.100.32', 'manual@example.com', 2, 'tipjar');
  assert.equal(manual.status, 200);

  // Stripe keeps a session open 30 minutes at least: the buyer is told the hold's end all the same.
  const session = [...double.stripe.sessions.values()][0]!;
  assert.ok(session.expires_at * 1000 >= start + 30 * MINUTE);
  for (const id of [card.body.data.id, crypto.body.data.id]) {
    const held = await invoice(id);
    assert.equal(Date.parse(held.payment.closesAt), start + 15 * MINUTE);
    assert.equal(Date.parse(held.expiresAt), start + 15 * MINUTE + CALLBACK_GRACE_MS);
  }
  assert.equal(Date.parse((await invoice(manual.body.data.id)).expiresAt), start + 60 * MINUTE);
  assert.equal(await stock(), 24);

  clock.advance(15 * MINUTE + CALLBACK_GRACE_MS + 1000);
  assert.equal((await invoice(card.body.data.id)).status, 'expired');
  assert.equal((await invoice(crypto.body.data.id)).status, 'expired');
  assert.equal((await invoice(manual.body.data.id)).status, 'pending');
  assert.equal(await stock(), 28);
  // Both provider pages would stay open (Stripe's 31 minutes, the charge's hour): the expiry job closes them, once.
  const closes = () =>
    double.requests.filter((r) => r.method === 'POST' && /\/(expire|cancel)$/.test(r.path)).map((r) => r.path);
  assert.deepEqual(closes(), []);
  await app.jobs.runOnce('invoice-expiry');
  const charge = [...double.crypto.charges.values()][0]!;
  assert.deepEqual(closes().sort(), [`/charges/${charge.code}/cancel`, `/v1/checkout/sessions/${session.id}/expire`]);
  assert.equal(double.stripe.sessions.get(session.id)!.status, 'expired');
  await app.jobs.runOnce('invoice-expiry');
  assert.equal(closes().length, 2);

  // An invoice lifetime shorter than the hold is the ceiling for card orders too.
  assertOk(await api.put(`/self/${shopId}/settings/invoices`, { lifetimeMinutes: 10 }));
  const now = clock.now();
  const short = await buy('198.51.100.33', 'short@example.com', 1, 'cryptocommerce');
  assert.equal(short.status, 200);
  assert.equal(Date.parse((await invoice(short.body.data.id)).payment.closesAt), now + 10 * MINUTE);
});

test('parallel checkouts of one client never pass its limits; other clients are not held up', async (t) => {
  const { app, buy, shopId } = await setup(t);
  // 8 orders of 2 units at once from one address: 3 pending orders at most.
  const results = await Promise.all([
    ...Array.from({ length: 8 }, (_, i) => buy('198.51.100.50', `rush.${i}@example.com`, 2)),
    ...Array.from({ length: 3 }, (_, i) => buy(`203.0.113.${60 + i}`, `calm.${i}@example.com`, 2)),
  ]);
  const rushed = results.slice(0, 8).map((r) => r.status);
  assert.equal(rushed.filter((s) => s === 200).length, 3, `statuses ${rushed.join(',')}`);
  assert.deepEqual(new Set(rushed.filter((s) => s !== 200)), new Set([429]));
  assert.deepEqual(
    results.slice(8).map((r) => r.status),
    [200, 200, 200],
  );
  const held = await app.db.kysely
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('shop_id', '=', shopId)
    .where('client_net', '=', '198.51.100.50')
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  assert.equal(Number(held.n), 3);
});

test('parallel orders of one e-mail address from many addresses never hold more than unitsPerClient units', async (t) => {
  const { buy, stock } = await setup(t, { pendingPerClient: 0 });
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) => buy(`192.0.2.${10 + i}`, 'units.rush@example.com', 4)),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 2, `statuses ${statuses.join(',')}`);
  assert.deepEqual(new Set(statuses.filter((s) => s !== 200)), new Set([422]));
  assert.equal(await stock(), 22);
});

test("the storefront's checkout form answers the same limits: the page says so, with 429", async (t) => {
  const { app, api, shopId, buy } = await setup(t);
  // Every injected storefront request comes from 127.0.0.1: that client places 3 orders first.
  for (let i = 1; i <= 3; i++) assert.equal((await buy('127.0.0.1', `local.${i}@example.com`)).status, 200);
  const { subdomain } = assertOk(await api.get(`/self/${shopId}/settings`));
  const product = assertOk(await api.get(`/self/${shopId}/v2/products`)).items[0];
  const query = new URLSearchParams({ product: String(product.id), variant: String(product.variants[0].id) });
  const { page, form } = await openForm(app, `/s/${subdomain}/checkout?${query}`);
  assert.equal(page.statusCode, 200, page.body);
  const res = await postForm(app, `/s/${subdomain}/checkout`, form, {
    product: String(product.id),
    variant: String(product.variants[0].id),
    quantity: '1',
    email: 'local.4@example.com',
    gateway: 'tipjar',
  });
  assert.equal(res.statusCode, 429);
  assert.match(res.body, /Too many unpaid orders: this shop allows 3 per client/);
});

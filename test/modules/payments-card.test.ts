import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { fromStripeAmount, toStripeAmount } from '../../src/modules/gateways/stripe.adapter.js';
import { owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { buildWithProviders, deliverCallback, type StripeSession, stripeEvent } from '../helpers/payment-providers.js';

/**
 * Issue 23: card payments through Stripe Checkout (`cardconnect`), against a local double of
 * Stripe's API (test/helpers/payment-providers.ts) reached through the `stripe` library, with
 * callbacks signed as Stripe signs them.
 */

const SECRET = 'whsec_test_card_secret_0001';

async function setup(t: TestContext) {
  const { app, double } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: ['CARD-KEY-ALPHA-1', 'CARD-KEY-BRAVO-2', 'CARD-KEY-CHARLIE-3'] });
  const { shopId, productId, keysVariant } = shop;
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
      webhookSecret: SECRET,
    }),
  );
  const checkout = async (quantity = 1) =>
    assertOk(
      await api.post(`/v2/public/shops/${shopId}/invoices`, {
        customerEmail: 'card.buyer@example.com',
        gateway: 'cardconnect',
        parts: [{ productId, productVariantId: keysVariant, quantity }],
      }),
    );
  const callback = (event: { payload: string; headers: Record<string, string> }, forShop: number = shopId) =>
    deliverCallback(app, 'cardconnect', forShop, event);
  const sessionOf = (invoiceId: string) => {
    const session = [...double.stripe.sessions.values()].find((s) => s.metadata.invoiceId === invoiceId);
    assert.ok(session, `a Checkout Session for ${invoiceId}`);
    return session;
  };
  const invoice = async (id: string) => assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
  const stock = async () => assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`)).variants[0].stock;
  const events = async (type: string) =>
    (
      await app.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('shop_id', '=', shopId)
        .where('type', '=', type)
        .execute()
    ).map((e) => JSON.parse(e.payload));
  const checkoutMails = (id: string) =>
    app.db.kysely
      .selectFrom('mail_outbox')
      .select(['subject', 'body_text'])
      .where('shop_id', '=', shopId)
      // Mails name the order by its payment reference; the invoice id is in the link only.
      .where('subject', 'like', 'Your order % how to pay')
      .where('body_text', 'like', `%/invoices/${id}%`)
      .execute();
  return { app, api, double, ...shop, checkout, callback, sessionOf, invoice, stock, events, checkoutMails };
}

test('checkout starts a Checkout Session for the invoice: amount in minor units, the shop currency, the invoice id in metadata; the buyer gets its page', async (t) => {
  const { double, checkout, sessionOf, invoice, shopId } = await setup(t);
  const placed = await checkout(2);
  const session = sessionOf(placed.id);
  assert.equal(session.amount_total, 1998);
  assert.equal(session.currency, 'usd');
  assert.deepEqual(session.metadata, { invoiceId: placed.id, shopId: String(shopId) });
  assert.equal(session.client_reference_id, placed.id);
  assert.equal(session.customer_email, 'card.buyer@example.com');
  assert.equal(session.success_url, placed.url, 'the provider sends the buyer back to the invoice page');
  assert.equal(placed.payment.url, session.url, "the buyer's view carries the payment page");
  const request = double.requests.find((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions')!;
  assert.match(
    String(request.headers['idempotency-key']),
    new RegExp(placed.id),
    'one session per invoice, whatever retries',
  );
  assert.match(String(request.headers.authorization), /^Bearer sk_test_/);
  const owned = await invoice(placed.id);
  assert.equal(owned.payment.providerId, session.id);
  // The stock is held while the page is open (Stripe's 30-minute minimum), plus the grace for its last callback.
  assert.ok(Date.parse(owned.expiresAt) >= session.expires_at * 1000, 'the invoice outlives the payment page');
  assert.equal(owned.payment.closesAt, new Date(session.expires_at * 1000).toISOString());
  assert.equal(placed.payment.closesAt, owned.payment.closesAt, 'the buyer is told when the page closes');
});

test("the buyer's mail and page give the payment page's deadline, not the invoice's grace", async (t) => {
  const { app, checkout, checkoutMails, sessionOf } = await setup(t);
  const placed = await checkout();
  const closes = new Date(sessionOf(placed.id).expires_at * 1000).toISOString();
  const mails = await checkoutMails(placed.id);
  assert.equal(mails.length, 1, 'one checkout mail, queued once the page exists');
  assert.match(mails[0]!.body_text, /by card on Stripe's secure payment page/);
  const page = await app.inject({ url: new URL(placed.url).pathname });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, new RegExp(`the payment page closes[\\s\\S]*datetime="${closes}"`));
  assert.match(page.body, new RegExp(`href="${sessionOf(placed.id).url}"`), 'the Pay link');
});

test('a paid session completes the invoice once, whether the callback comes twice or twice at once', async (t) => {
  const { double, checkout, sessionOf, callback, invoice, events, stock } = await setup(t);
  const placed = await checkout();
  const stockBefore = await stock();
  const paid = double.stripe.pay(sessionOf(placed.id).id);
  const event = stripeEvent('checkout.session.completed', paid, SECRET);
  const [first, second] = await Promise.all([callback(event), callback(event)]);
  // One completes it; the other finds it applied (`duplicate`) or still being handled (a 409 the provider retries).
  const outcomes = [first, second].map((r) =>
    r.status === 409 ? 'in-flight' : r.status === 200 ? r.body.data.outcome : `${r.status} ${JSON.stringify(r.body)}`,
  );
  assert.equal(outcomes.filter((o) => o === 'completed').length, 1, outcomes.join());
  assert.ok(['duplicate', 'in-flight'].includes(outcomes.find((o) => o !== 'completed')!), outcomes.join());
  const again = await callback(event);
  assert.equal(again.body.data.outcome, 'duplicate');
  // The same payment reported by another event id (Stripe's retries keep the id; a second event would not).
  const other = await callback(stripeEvent('checkout.session.completed', paid, SECRET));
  assert.equal(other.body.data.outcome, 'already-completed');

  const done = await invoice(placed.id);
  assert.equal(done.status, 'completed');
  assert.equal(done.payment.reference, paid.payment_intent, 'the PaymentIntent is kept to refund it');
  assert.equal(done.parts[0].deliverables.length, 1);
  assert.equal((await events('invoice.completed')).length, 1, 'delivered once');
  assert.equal(await stock(), stockBefore, 'the reserved key was sold, nothing else moved');
});

test('a callback with a bad signature, for another shop, of another amount or currency, or for another session changes nothing', async (t) => {
  const { app, api, double, checkout, sessionOf, callback, invoice, shopId } = await setup(t);
  const placed = await checkout();
  const session = double.stripe.pay(sessionOf(placed.id).id);

  const forged = stripeEvent('checkout.session.completed', session, 'whsec_not_the_shops_secret');
  assertError(await callback(forged), 400, 'validation_error');
  const unsigned = await app.inject({
    method: 'POST',
    url: `/v2/public/payments/cardconnect/${shopId}/webhook`,
    headers: { 'content-type': 'application/json' },
    payload: stripeEvent('checkout.session.completed', session, SECRET).payload,
  });
  assert.equal(unsigned.statusCode, 400);
  // A body changed after signing.
  const signed = stripeEvent('checkout.session.completed', session, SECRET);
  const tampered = { ...signed, payload: signed.payload.replace('"paid"', '"paid" ') };
  assertError(await callback(tampered), 400, 'validation_error');

  // Another shop of another owner, with its own secret: the invoice is not one of its own.
  const otherApi = await owner(app);
  const other = await sellingShop(otherApi);
  assertOk(
    await otherApi.put(`/self/${other.shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_other',
      webhookSecret: 'whsec_other_shop',
    }),
  );
  const crossShop = await callback(
    stripeEvent('checkout.session.completed', session, 'whsec_other_shop'),
    other.shopId,
  );
  assert.equal(crossShop.body.data.outcome, 'ignored');

  const cheaper: StripeSession = { ...session, amount_total: 1 };
  assert.equal(
    (await callback(stripeEvent('checkout.session.completed', cheaper, SECRET))).body.data.outcome,
    'amount-mismatch',
  );
  const euros: StripeSession = { ...session, currency: 'eur' };
  assert.equal(
    (await callback(stripeEvent('checkout.session.completed', euros, SECRET))).body.data.outcome,
    'amount-mismatch',
  );
  const otherSession: StripeSession = { ...session, id: 'cs_test_someone_elses' };
  assert.equal(
    (await callback(stripeEvent('checkout.session.completed', otherSession, SECRET))).body.data.outcome,
    'ignored',
  );
  // A shop without the gateway configured has no callback.
  const unconfigured = await callback(stripeEvent('checkout.session.completed', session, SECRET), 999_999);
  assert.equal(unconfigured.status, 404);

  const still = await invoice(placed.id);
  assert.equal(still.status, 'pending');
  assert.deepEqual(still.parts[0].deliverables, []);
  assert.match(still.payment.note, /not completed/, 'the payment of another amount is shown to the owner');
  const list = assertOk(await api.get(`/self/${shopId}/invoices?status=completed`));
  assert.equal(list.items.length, 0);
  // The right one still completes it.
  assert.equal(
    (await callback(stripeEvent('checkout.session.completed', session, SECRET))).body.data.outcome,
    'completed',
  );
});

test('an expired session expires the invoice and releases its stock; a failed delayed payment cancels it', async (t) => {
  const { double, checkout, sessionOf, callback, invoice, stock, events } = await setup(t);
  const before = await stock();
  const first = await checkout();
  const second = await checkout();
  assert.equal(await stock(), before - 2);
  const expired = { ...sessionOf(first.id), status: 'expired' };
  assert.equal((await callback(stripeEvent('checkout.session.expired', expired, SECRET))).body.data.outcome, 'expired');
  assert.equal((await invoice(first.id)).status, 'expired');
  assert.equal(await stock(), before - 1, 'the key is back on sale');
  assert.equal((await events('invoice.expired')).length, 1);

  const failed = { ...sessionOf(second.id) };
  assert.equal(
    (await callback(stripeEvent('checkout.session.async_payment_failed', failed, SECRET))).body.data.outcome,
    'cancelled',
  );
  assert.equal((await invoice(second.id)).status, 'cancelled');
  assert.equal(await stock(), before);

  // A payment that arrives after the order ended delivers nothing and is shown to the owner.
  const late = double.stripe.pay(sessionOf(first.id).id);
  assert.equal(
    (await callback(stripeEvent('checkout.session.completed', late, SECRET))).body.data.outcome,
    'paid-late',
  );
  const ended = await invoice(first.id);
  assert.equal(ended.status, 'expired');
  assert.match(ended.payment.note, /after the order was expired/);
});

test('a session completed unpaid (a method that settles later) holds the order for async_payment_succeeded', async (t) => {
  const { checkout, sessionOf, callback, invoice } = await setup(t);
  const placed = await checkout();
  const session = sessionOf(placed.id);
  const unpaid = await callback(stripeEvent('checkout.session.completed', { ...session, status: 'complete' }, SECRET));
  assert.equal(unpaid.body.data.outcome, 'held');
  const held = await invoice(placed.id);
  assert.equal(held.status, 'pending');
  assert.match(held.payment.note, /settles later/);
  assert.ok(Date.parse(held.expiresAt) > Date.now() + 6 * 24 * 3600_000, 'kept from expiring while Stripe settles it');
  const succeeded = { ...session, status: 'complete', payment_status: 'paid', payment_intent: 'pi_delayed_1' };
  assert.equal(
    (await callback(stripeEvent('checkout.session.async_payment_succeeded', succeeded, SECRET))).body.data.outcome,
    'completed',
  );
  const done = await invoice(placed.id);
  assert.equal(done.payment.reference, 'pi_delayed_1');
  assert.equal(done.payment.note, null);
});

test('when Stripe cannot start the payment the checkout is a 502, and the invoice is cancelled with its stock back', async (t) => {
  const { app, api, double, checkout, stock, shopId, productId, keysVariant, checkoutMails } = await setup(t);
  const before = await stock();
  // 409 is not retried by the library; a 500 would be, once (maxNetworkRetries: 1).
  double.failNext('/v1/checkout/sessions', 500, 'An unknown error occurred', 2);
  const res = await api.post(`/v2/public/shops/${shopId}/invoices`, {
    customerEmail: 'card.buyer@example.com',
    gateway: 'cardconnect',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
  });
  assertError(res, 502, 'payment_provider_error');
  // The buyer is not told what Stripe said (it may name the shop's key or account): the log has it.
  assert.deepEqual(res.body.errors, ['gateway: Stripe refused or did not answer']);
  assert.equal(await stock(), before, 'nothing is held');
  const [cancelledId] = (
    await app.db.kysely.selectFrom('invoices').select('id').where('shop_id', '=', shopId).execute()
  ).map((r) => r.id);
  assert.deepEqual(await checkoutMails(cancelledId!), [], 'no "how to pay" mail for an order that was not placed');
  const cancelled = assertOk(await api.get(`/self/${shopId}/invoices?status=cancelled`));
  assert.equal(cancelled.items.length, 1);
  // And a later checkout works.
  assert.equal((await checkout()).status, 'pending');
});

test('cancelling a card order closes its Checkout Session at Stripe', async (t) => {
  const { app, api, double, checkout, sessionOf, shopId } = await setup(t);
  const byOwner = await checkout();
  assertOk(await api.post(`/self/${shopId}/invoices/${byOwner.id}/cancel`));
  assert.equal(sessionOf(byOwner.id).status, 'expired');
  const byBuyer = await checkout();
  const res = await app.inject({ method: 'POST', url: `/v2/public/invoices/${byBuyer.id}/cancel` });
  assert.equal(res.statusCode, 200);
  assert.equal(sessionOf(byBuyer.id).status, 'expired');
  assert.equal(double.requests.filter((r) => r.path.endsWith('/expire')).length, 2);
});

test('a card order the owner processed by hand is refunded as recorded: Stripe is not asked about a payment it never saw', async (t) => {
  const { api, double, checkout, invoice, shopId } = await setup(t);
  const placed = await checkout();
  const processed = assertOk(
    await api.post(`/self/${shopId}/invoices/${placed.id}/process`, { paymentReference: 'bank transfer 77' }),
  );
  assert.equal(processed.payment.confirmedBy, 'owner');
  assertOk(await api.post(`/self/${shopId}/invoices/${placed.id}/refund`, { reason: 'changed mind' }));
  const refunded = await invoice(placed.id);
  assert.equal(refunded.refunds[0].method, 'recorded');
  assert.equal(double.stripe.refunds.length, 0);
  assert.equal(double.requests.filter((r) => r.path === '/v1/refunds').length, 0);
});

test('an event being handled is a 409 (the provider retries); a claim a stopped server left is taken over', async (t) => {
  const { app, double, checkout, sessionOf, callback, invoice, shopId } = await setup(t);
  const placed = await checkout();
  const paid = double.stripe.pay(sessionOf(placed.id).id);
  const event = stripeEvent('checkout.session.completed', paid, SECRET);
  const claim = (createdAt: number) =>
    app.db.kysely
      .insertInto('payment_events')
      .values({
        shop_id: shopId,
        provider: 'cardconnect',
        event_id: event.id,
        invoice_id: placed.id,
        type: 'checkout.session.completed',
        outcome: 'handling',
        created_at: createdAt,
      })
      .execute();
  // Another request is handling it right now.
  await claim(Date.now());
  assertError(await callback(event), 409, 'conflict');
  assert.equal((await invoice(placed.id)).status, 'pending');
  // The same claim, left ten minutes ago by a server that stopped: the delivery takes it over.
  await app.db.kysely
    .updateTable('payment_events')
    .set({ created_at: Date.now() - 10 * 60_000 })
    .where('event_id', '=', event.id)
    .execute();
  assert.equal((await callback(event)).body.data.outcome, 'completed');
  assert.equal((await callback(event)).body.data.outcome, 'duplicate');
  assert.equal((await invoice(placed.id)).status, 'completed');
});

test("amounts follow Stripe's minor units where they differ from ISO 4217, and what Stripe cannot charge exactly is refused", () => {
  assert.equal(toStripeAmount(999, 'USD', 2), 999);
  assert.equal(toStripeAmount(500, 'JPY', 0), 500);
  assert.equal(toStripeAmount(1500, 'ISK', 0), 150_000, 'ISK: two decimals at Stripe, whole krónur');
  assert.equal(toStripeAmount(12_300, 'MGA', 2), 123, 'MGA: no decimals at Stripe');
  assert.equal(toStripeAmount(12_345, 'MGA', 2), null, 'not a whole ariary');
  assert.equal(toStripeAmount(1_230, 'KWD', 3), 1_230);
  assert.equal(toStripeAmount(1_235, 'KWD', 3), null, "Stripe wants the last of KWD's three digits 0");
  assert.equal(fromStripeAmount(150_000, 'ISK', 0), 1500);
  assert.equal(fromStripeAmount(123, 'MGA', 2), 12_300);
  assert.equal(fromStripeAmount(150_050, 'ISK', 0), null);
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { expireOverdue } from '../../src/modules/orders/lifecycle.service.js';
import { ATTENTION_HOLD_MS, CALLBACK_GRACE_MS } from '../../src/modules/payments/payment.service.js';
import { owner } from '../helpers/build.js';
import { atTime } from '../helpers/clock.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { buildWithProviders, type CryptoCharge, cryptoEvent, deliverCallback } from '../helpers/payment-providers.js';

/**
 * Issue 23: crypto payments through a hosted charge (`cryptocommerce`, the Coinbase Commerce
 * charges API), against the local provider double (test/helpers/payment-providers.ts), with
 * callbacks signed as the provider signs them (hex HMAC-SHA256 of the body in
 * `X-CC-Webhook-Signature`).
 */

const SECRET = 'cc-webhook-shared-secret-0001';
const API_KEY = 'cc-api-key-0123456789';
const DAY_MS = 24 * 60 * 60_000;

type Event = { payload: string; headers: Record<string, string> };

async function setup(t: TestContext) {
  const { app, double } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await sellingShop(api, {
    serials: ['CRYPTO-KEY-ALPHA-1', 'CRYPTO-KEY-BRAVO-2', 'CRYPTO-KEY-CHARLIE-3', 'CRYPTO-KEY-DELTA-4'],
  });
  const { shopId, productId, keysVariant } = shop;
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cryptocommerce`, {
      enabled: true,
      apiKey: API_KEY,
      webhookSecret: SECRET,
    }),
  );
  const checkout = async (quantity = 1) =>
    assertOk(
      await api.post(`/v2/public/shops/${shopId}/invoices`, {
        customerEmail: 'crypto.buyer@example.com',
        gateway: 'cryptocommerce',
        parts: [{ productId, productVariantId: keysVariant, quantity }],
      }),
    );
  const callback = (event: Event, forShop: number = shopId) => deliverCallback(app, 'cryptocommerce', forShop, event);
  /** The outcome of a callback that must be accepted (200). */
  const outcome = async (event: Event, forShop = shopId) => {
    const res = await callback(event, forShop);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data.outcome as string;
  };
  const chargeOf = (invoiceId: string): CryptoCharge => {
    const charge = [...double.crypto.charges.values()].find((c) => c.metadata.invoiceId === invoiceId);
    assert.ok(charge, `a charge for ${invoiceId}`);
    return structuredClone(charge);
  };
  /** The charge as the provider reports it once these payments (decimal strings of the shop currency) were seen. */
  const withPayments = (charge: CryptoCharge, amounts: string[], currency = charge.pricing.local.currency) => ({
    ...charge,
    payments: amounts.map((amount) => ({
      transaction_id: `0x${randomBytes(16).toString('hex')}`,
      status: 'CONFIRMED',
      value: { local: { amount, currency } },
    })),
  });
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
  return { app, api, double, ...shop, checkout, callback, outcome, chargeOf, withPayments, invoice, stock, events };
}

test('checkout creates a charge: the price as a decimal string in the shop currency, the invoice in metadata, the API key sent; the buyer gets its page', async (t) => {
  const { api, double, checkout, chargeOf, invoice, shopId } = await setup(t);
  const placed = await checkout(2);
  const charge = chargeOf(placed.id);
  assert.deepEqual(charge.pricing.local, { amount: '19.98', currency: 'USD' });
  assert.deepEqual(charge.metadata, { invoiceId: placed.id, shopId: String(shopId) });
  assert.equal(charge.redirect_url, placed.url, 'the provider sends the buyer back to the invoice page');
  assert.match(charge.name, new RegExp(placed.id));
  assert.equal(placed.payment.url, charge.hosted_url, "the buyer's view carries the charge's page");
  assert.match(placed.payment.instructions, /19\.98 USD/);

  const created = double.requests.filter((r) => r.path === '/charges');
  assert.equal(created.length, 1);
  assert.equal(created[0]!.method, 'POST');
  assert.equal(created[0]!.headers['x-cc-api-key'], API_KEY);
  assert.equal(JSON.parse(created[0]!.body).local_price.amount, '19.98', 'a string, never a float');

  const owned = await invoice(placed.id);
  assert.equal(owned.payment.providerId, charge.code);
  assert.equal(owned.payment.url, charge.hosted_url);
  assert.equal(owned.payment.reference, null);
  assert.equal(owned.payment.note, null);
  // The charge's hour or the order's hold (here the invoice lifetime, 60 minutes), whichever ends first (issue 36).
  assert.equal(
    Date.parse(owned.expiresAt),
    Math.min(Date.parse(charge.expires_at), Date.parse(owned.createdAt) + 60 * 60_000) + CALLBACK_GRACE_MS,
    'the stock is held while the charge can be paid, plus the grace for its last callback',
  );

  // A currency without decimals is priced without a decimal point.
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'JPY' }));
  const yen = await checkout(1);
  assert.equal(yen.currency, 'JPY');
  assert.deepEqual(chargeOf(yen.id).pricing.local, { amount: String(yen.total), currency: 'JPY' });
  assert.match(String(yen.total), /^\d+$/);
});

test('charge:confirmed completes the invoice once, whether delivered twice or twice at once', async (t) => {
  const { checkout, chargeOf, withPayments, callback, outcome, invoice, events, stock } = await setup(t);
  const placed = await checkout();
  const stockBefore = await stock();
  const paid = withPayments(chargeOf(placed.id), ['9.99']);
  const event = cryptoEvent('charge:confirmed', paid, SECRET);
  // One completes it; the other finds it applied (`duplicate`) or still being handled (a 409 the provider retries).
  const outcomes = (await Promise.all([callback(event), callback(event)])).map((r) =>
    r.status === 409 ? 'in-flight' : r.status === 200 ? r.body.data.outcome : `${r.status} ${JSON.stringify(r.body)}`,
  );
  assert.equal(outcomes.filter((o) => o === 'completed').length, 1, outcomes.join());
  assert.ok(['duplicate', 'in-flight'].includes(outcomes.find((o) => o !== 'completed')!), outcomes.join());
  assert.equal(await outcome(event), 'duplicate');
  // The same payment reported again under another event id.
  assert.equal(await outcome(cryptoEvent('charge:confirmed', paid, SECRET)), 'already-completed');
  assert.equal(await outcome(cryptoEvent('charge:resolved', paid, SECRET)), 'already-completed');
  // A late word about the payment (a pending event after the confirmation) leaves the completed order alone.
  assert.equal(await outcome(cryptoEvent('charge:pending', paid, SECRET)), 'ignored');

  const done = await invoice(placed.id);
  assert.equal(done.status, 'completed');
  assert.equal(done.payment.reference, paid.payments[0]!.transaction_id, 'the transaction is kept');
  assert.equal(done.payment.note, null);
  assert.deepEqual(done.parts[0].deliverables, ['CRYPTO-KEY-ALPHA-1']);
  assert.equal((await events('invoice.completed')).length, 1, 'delivered once');
  assert.equal(await stock(), stockBefore, 'the reserved key was sold, nothing else moved');
});

test('a bad or malformed signature, another shop, another amount, currency or charge change nothing', async (t) => {
  const { app, api, checkout, chargeOf, withPayments, callback, outcome, invoice, events, shopId } = await setup(t);
  const placed = await checkout();
  const charge = chargeOf(placed.id);
  const paid = withPayments(charge, ['9.99']);

  const forged = await callback(cryptoEvent('charge:confirmed', paid, 'not-the-shops-secret'));
  assertError(forged, 400, 'validation_error');
  assert.match(forged.body.errors[0], /^signature: /);
  const signed = cryptoEvent('charge:confirmed', paid, SECRET);
  // A body changed after signing.
  assertError(
    await callback({ ...signed, payload: signed.payload.replace('"9.99"', '"99.90"') }),
    400,
    'validation_error',
  );
  const malformed = [
    'sha256=0123',
    'not-hex-at-all',
    signed.headers['x-cc-webhook-signature'].slice(1),
    `${signed.headers['x-cc-webhook-signature']}00`,
    `${'z'.repeat(64)}`,
  ];
  for (const signature of malformed) {
    const res = await callback({ ...signed, headers: { ...signed.headers, 'x-cc-webhook-signature': signature } });
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /missing or malformed/);
  }
  const unsigned = await app.inject({
    method: 'POST',
    url: `/v2/public/payments/cryptocommerce/${shopId}/webhook`,
    headers: { 'content-type': 'application/json' },
    payload: signed.payload,
  });
  assert.equal(unsigned.statusCode, 400);

  // Another shop of another owner, with its own secret: the invoice is not one of its own.
  const otherApi = await owner(app);
  const other = await sellingShop(otherApi);
  assertOk(
    await otherApi.put(`/self/${other.shopId}/settings/payments/cryptocommerce`, {
      enabled: true,
      apiKey: 'cc-other-api-key',
      webhookSecret: 'cc-other-secret',
    }),
  );
  assert.equal(await outcome(cryptoEvent('charge:confirmed', paid, 'cc-other-secret'), other.shopId), 'ignored');
  // This shop's secret, but the metadata names another shop.
  const elsewhere = { ...paid, metadata: { ...paid.metadata, shopId: String(other.shopId) } };
  assert.equal(await outcome(cryptoEvent('charge:confirmed', elsewhere, SECRET)), 'ignored');
  // Another charge code for the same invoice.
  assert.equal(await outcome(cryptoEvent('charge:confirmed', { ...paid, code: 'ZZZZ9999' }, SECRET)), 'ignored');
  // A shop without the gateway configured has no callback.
  assert.equal((await callback(cryptoEvent('charge:confirmed', paid, SECRET), 999_999)).status, 404);

  const stillUntouched = await invoice(placed.id);
  assert.equal(stillUntouched.status, 'pending');
  assert.equal(stillUntouched.payment.note, null, 'nothing unsigned or foreign is even noted');

  // Signed by the shop, paid in full, but the charge is of another price or currency.
  const cheaper = withPayments({ ...charge, pricing: { local: { amount: '1.00', currency: 'USD' } } }, ['1.00']);
  assert.equal(await outcome(cryptoEvent('charge:confirmed', cheaper, SECRET)), 'amount-mismatch');
  const euros = withPayments({ ...charge, pricing: { local: { amount: '9.99', currency: 'EUR' } } }, ['9.99']);
  assert.equal(await outcome(cryptoEvent('charge:confirmed', euros, SECRET)), 'amount-mismatch');

  const still = await invoice(placed.id);
  assert.equal(still.status, 'pending');
  assert.deepEqual(still.parts[0].deliverables, []);
  assert.match(still.payment.note, /not completed/, 'the payment of another price is shown to the owner');
  assert.equal((await events('invoice.completed')).length, 0);
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices?status=completed`)).items.length, 0);
  // The right one still completes it.
  assert.equal(await outcome(cryptoEvent('charge:confirmed', paid, SECRET)), 'completed');
  assert.equal((await invoice(placed.id)).status, 'completed');
});

test('an underpayment or a payment awaiting confirmation holds the invoice for the owner: noted, kept from expiring, its stock reserved', async (t) => {
  const { app, checkout, chargeOf, withPayments, outcome, invoice, stock, shopId } = await setup(t);
  const before = await stock();
  const short = await checkout();
  const failedShort = await checkout();
  const waiting = await checkout();
  assert.equal(await stock(), before - 3);
  const originalExpiry = Date.parse((await invoice(short.id)).expiresAt);

  const heldFrom = Date.now();
  assert.equal(
    await outcome(cryptoEvent('charge:confirmed', withPayments(chargeOf(short.id), ['5.00']), SECRET)),
    'held',
  );
  const failedCharge = {
    ...withPayments(chargeOf(failedShort.id), ['2.50', '2.49']),
    timeline: [{ status: 'UNRESOLVED', context: 'UNDERPAID', time: new Date().toISOString() }],
  };
  assert.equal(await outcome(cryptoEvent('charge:failed', failedCharge, SECRET)), 'held');
  const seen = withPayments(chargeOf(waiting.id), ['9.99']);
  seen.payments = seen.payments.map((p) => ({ ...p, status: 'PENDING' }));
  assert.equal(await outcome(cryptoEvent('charge:pending', seen, SECRET)), 'held');
  const heldTo = Date.now();

  const underpaid = await invoice(short.id);
  assert.equal(underpaid.status, 'pending');
  assert.match(underpaid.payment.note, /Underpaid: 5\.00 USD received of 9\.99 USD/);
  assert.match((await invoice(failedShort.id)).payment.note, /Underpaid: 4\.99 USD received of 9\.99 USD/);
  assert.match((await invoice(waiting.id)).payment.note, /9\.99 USD was seen and awaits confirmation/);
  for (const id of [short.id, failedShort.id, waiting.id]) {
    const held = Date.parse((await invoice(id)).expiresAt);
    assert.ok(held >= heldFrom + ATTENTION_HOLD_MS && held <= heldTo + ATTENTION_HOLD_MS, `${id} is held 7 days`);
  }
  // The buyer's view says the order waits for the shop, not the owner's note (which may say "refund it").
  const publicView = (await app.inject({ url: `/v2/public/invoices/${short.id}` })).json().data;
  assert.match(publicView.payment.note, /needs a look from the shop/);
  assert.doesNotMatch(JSON.stringify(publicView), /Underpaid/);

  // The expiry worker, a day after the charge's page closed, leaves the held orders and their stock alone.
  assert.ok(originalExpiry + DAY_MS < heldFrom + ATTENTION_HOLD_MS);
  assert.equal(await expireOverdue(atTime(app.ctx, originalExpiry + DAY_MS), { shopId }), 0);
  assert.equal(await stock(), before - 3);
  for (const id of [short.id, failedShort.id, waiting.id]) assert.equal((await invoice(id)).status, 'pending');

  // The owner resolves the underpayment at the provider: the order completes.
  const resolved = withPayments(chargeOf(short.id), ['5.00']);
  assert.equal(await outcome(cryptoEvent('charge:resolved', resolved, SECRET)), 'completed');
  const done = await invoice(short.id);
  assert.equal(done.status, 'completed');
  assert.equal(done.payment.reference, resolved.payments[0]!.transaction_id);
  assert.equal(done.payment.note, null, 'a completed order leaves nothing for the owner to look at');
  assert.equal(done.parts[0].deliverables.length, 1);
  // The payment awaiting confirmation is confirmed.
  assert.equal(
    await outcome(cryptoEvent('charge:confirmed', withPayments(chargeOf(waiting.id), ['9.99']), SECRET)),
    'completed',
  );

  // The hold ends: past it, the order nobody resolved expires and its stock is back on sale.
  assert.equal(await expireOverdue(atTime(app.ctx, heldTo + ATTENTION_HOLD_MS + 1), { shopId }), 1);
  assert.equal((await invoice(failedShort.id)).status, 'expired');
  assert.equal(await stock(), before - 2);
});

test('charge:failed with nothing paid expires the invoice and returns its stock; a payment arriving later is noted, nothing delivered', async (t) => {
  const { checkout, chargeOf, withPayments, outcome, invoice, stock, events } = await setup(t);
  const before = await stock();
  const placed = await checkout();
  assert.equal(await stock(), before - 1);
  const failed = {
    ...chargeOf(placed.id),
    timeline: [{ status: 'EXPIRED', time: new Date().toISOString() }],
  };
  const event = cryptoEvent('charge:failed', failed, SECRET);
  assert.equal(await outcome(event), 'expired');
  assert.equal(await outcome(event), 'duplicate');
  const ended = await invoice(placed.id);
  assert.equal(ended.status, 'expired');
  assert.equal(await stock(), before, 'the key is back on sale');
  assert.equal((await events('invoice.expired')).length, 1);
  // Another failure report of the ended order changes nothing.
  assert.equal(await outcome(cryptoEvent('charge:failed', failed, SECRET)), 'ignored');

  const late = withPayments(chargeOf(placed.id), ['9.99']);
  assert.equal(await outcome(cryptoEvent('charge:confirmed', late, SECRET)), 'paid-late');
  const noted = await invoice(placed.id);
  assert.equal(noted.status, 'expired');
  assert.deepEqual(noted.parts[0].deliverables, []);
  assert.match(noted.payment.note, /after the order was expired/);
  assert.ok(noted.payment.note.includes(late.payments[0]!.transaction_id), 'the payment to refund is named');
  assert.equal((await events('invoice.completed')).length, 0);
  assert.equal(await stock(), before);
});

test('a crypto order is refunded as recorded: the provider has no refund API and is not called', async (t) => {
  const { api, double, checkout, chargeOf, withPayments, outcome, shopId, events } = await setup(t);
  const placed = await checkout();
  assert.equal(
    await outcome(cryptoEvent('charge:confirmed', withPayments(chargeOf(placed.id), ['9.99']), SECRET)),
    'completed',
  );
  const calls = double.requests.length;
  const refunded = assertOk(
    await api.post(`/self/${shopId}/invoices/${placed.id}/refund`, { amount: 4, reason: 'one key did not work' }),
  );
  assert.equal(refunded.refunded, 4);
  assert.equal(refunded.refunds.length, 1);
  const [refund] = refunded.refunds;
  assert.equal(refund.method, 'recorded');
  assert.equal(refund.providerRefundId, null);
  assert.equal(refund.status, 'succeeded');
  assert.equal(refund.amount, 4);
  assert.equal(double.requests.length, calls, 'nothing was asked of the provider');
  const [event] = await events('invoice.refunded');
  assert.equal(event.method, 'recorded');
  assert.equal(event.amount, 4);
});

test('cancelling a crypto order cancels its charge at the provider, by the owner or the buyer; a provider that fails does not keep the order', async (t) => {
  const { app, api, double, checkout, chargeOf, shopId, stock } = await setup(t);
  const before = await stock();
  const byOwner = await checkout();
  const ownerCode = chargeOf(byOwner.id).code;
  assert.equal(assertOk(await api.post(`/self/${shopId}/invoices/${byOwner.id}/cancel`)).status, 'cancelled');
  const cancelCall = double.requests.find((r) => r.path === `/charges/${ownerCode}/cancel`);
  assert.ok(cancelCall, 'POST /charges/{code}/cancel was sent');
  assert.equal(cancelCall.method, 'POST');
  assert.equal(cancelCall.headers['x-cc-api-key'], API_KEY);
  assert.equal(double.crypto.charges.get(ownerCode)!.timeline.at(-1)!.status, 'CANCELED');

  const byBuyer = await checkout();
  const res = await app.inject({ method: 'POST', url: `/v2/public/invoices/${byBuyer.id}/cancel` });
  assert.equal(res.statusCode, 200, res.body);
  const buyerCode = chargeOf(byBuyer.id).code;
  assert.ok(double.requests.some((r) => r.path === `/charges/${buyerCode}/cancel`));

  // Closing the charge is best effort: the order is cancelled and its stock returned all the same.
  const unlucky = await checkout();
  const unluckyCode = chargeOf(unlucky.id).code;
  double.failNext(`/charges/${unluckyCode}/cancel`, 500, 'Internal error');
  assert.equal(assertOk(await api.post(`/self/${shopId}/invoices/${unlucky.id}/cancel`)).status, 'cancelled');
  assert.ok(double.requests.some((r) => r.path === `/charges/${unluckyCode}/cancel`));
  assert.equal(await stock(), before);
});

test('when the crypto checkout cannot create the charge the checkout is a 502, and the invoice is cancelled with its stock back', async (t) => {
  const { api, double, checkout, stock, shopId, productId, keysVariant } = await setup(t);
  const before = await stock();
  double.failNext('/charges', 500, 'Internal server error');
  const res = await api.post(`/v2/public/shops/${shopId}/invoices`, {
    customerEmail: 'crypto.buyer@example.com',
    gateway: 'cryptocommerce',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
  });
  assertError(res, 502, 'payment_provider_error');
  assert.deepEqual(res.body.errors, ['gateway: Coinbase Commerce refused or did not answer']);
  assert.equal(await stock(), before, 'nothing is held');
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices?status=cancelled`)).items.length, 1);
  assert.equal((await checkout()).status, 'pending', 'a later checkout works');
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import Stripe from 'stripe';
import { owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { buildWithProviders, deliverCallback, stripeEvent } from '../helpers/payment-providers.js';

/**
 * Issue 36 (item 6, Stripe half): a correctly signed Stripe event of a shape Stripe never sends
 * (no type, no `data.object`, without the ids shopd reads, ids of the wrong type) is a 400 in
 * the error envelope, as the crypto adapter answers, never a 500; nothing changes.
 */

const SECRET = 'whsec_test_shape_secret_0001';
const signer = new Stripe('sk_test_shape');

/** Any JSON body, signed for the shop's secret as Stripe signs events. */
function signed(body: unknown) {
  const payload = JSON.stringify(body);
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret: SECRET });
  return { payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } };
}

async function setup(t: TestContext) {
  const { app, double } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  assertOk(
    await api.put(`/self/${shop.shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
      webhookSecret: SECRET,
    }),
  );
  const placed = assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'shape.buyer@example.com',
      gateway: 'cardconnect',
      parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
    }),
  );
  const session = [...double.stripe.sessions.values()].find((s) => s.metadata.invoiceId === placed.id)!;
  const callback = (event: { payload: string; headers: Record<string, string> }) =>
    deliverCallback(app, 'cardconnect', shop.shopId, event);
  const handled = async () =>
    (await app.db.kysely.selectFrom('payment_events').select('event_id').where('shop_id', '=', shop.shopId).execute())
      .length;
  return { app, api, double, shop, placed, session, callback, handled };
}

test('a signed event without type, id or data.object is a 400, not a 500; nothing is recorded', async (t) => {
  const { api, double, shop, placed, session, callback, handled } = await setup(t);
  const paid = double.stripe.pay(session.id);
  const base = { id: 'evt_shape_1', object: 'event', type: 'checkout.session.completed', data: { object: paid } };
  const shapes: [string, unknown][] = [
    ['no type', { ...base, type: undefined }],
    ['type not a string', { ...base, type: 42 }],
    ['no id', { ...base, id: undefined }],
    ['no data', { ...base, data: undefined }],
    ['data not an object', { ...base, data: 'x' }],
    ['no data.object', { ...base, data: {} }],
    ['data.object null', { ...base, data: { object: null } }],
    ['data.object an array', { ...base, data: { object: [paid] } }],
    ['session without id', { ...base, data: { object: { ...paid, id: undefined } } }],
    ['session id a number', { ...base, data: { object: { ...paid, id: 7 } } }],
    ['payment_intent an object without id', { ...base, data: { object: { ...paid, payment_intent: {} } } }],
    ['currency a number', { ...base, data: { object: { ...paid, currency: 840 } } }],
    ['metadata a string', { ...base, data: { object: { ...paid, metadata: 'x' } } }],
    ['not an object at all', [1, 2, 3]],
    ['null', null],
  ];
  for (const [what, body] of shapes) {
    const answer = await callback(signed(body));
    assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
    assertError(answer, 400, 'validation_error');
  }
  assert.equal(await handled(), 0, 'no event was claimed');
  const view = assertOk(await api.get(`/self/${shop.shopId}/invoices/${placed.id}`));
  assert.equal(view.status, 'pending', 'the order is untouched');
  // The well-formed event still completes it.
  assert.equal(
    (await callback(stripeEvent('checkout.session.completed', paid, SECRET))).body.data.outcome,
    'completed',
  );
});

test('a signed dispute event without its id, payment_intent, status, reason, amount or currency is a 400', async (t) => {
  const { callback, handled } = await setup(t);
  const dispute = {
    id: 'dp_shape',
    object: 'dispute',
    payment_intent: 'pi_shape',
    amount: 999,
    currency: 'usd',
    reason: 'fraudulent',
    status: 'needs_response',
  };
  for (const field of ['id', 'payment_intent', 'status', 'reason', 'amount', 'currency'] as const) {
    const broken = { ...dispute, [field]: undefined };
    const answer = await callback(stripeEvent('charge.dispute.created', broken, SECRET));
    assert.equal(answer.status, 400, `without ${field}: ${JSON.stringify(answer.body)}`);
    assertError(answer, 400, 'validation_error');
  }
  const wrongType = await callback(stripeEvent('charge.dispute.created', { ...dispute, amount: '999' }, SECRET));
  assert.equal(wrongType.status, 400);
  assert.equal(await handled(), 0);
  // Well formed, about a payment of no order of the shop: recognised and ignored.
  const unknown = await callback(stripeEvent('charge.dispute.created', dispute, SECRET));
  assert.equal(unknown.status, 200);
  assert.equal(unknown.body.data.outcome, 'ignored');
});

test('an event shopd does not act on still needs its type and object; with them it is ignored', async (t) => {
  const { callback } = await setup(t);
  assert.equal((await callback(signed({ id: 'evt_x', object: 'event', type: 'customer.created' }))).status, 400);
  const fine = await callback(stripeEvent('customer.created', { id: 'cus_1', object: 'customer' }, SECRET));
  assert.equal(fine.status, 200);
  assert.equal(fine.body.data.outcome, 'ignored');
});

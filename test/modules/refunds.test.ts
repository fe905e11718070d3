import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { expireOverdue } from '../../src/modules/orders/lifecycle.service.js';
import { PAYMENT_EVENT_RETENTION_MS } from '../../src/modules/payments/events.repository.js';
import { sweepPaymentEvents } from '../../src/modules/payments/index.js';
import { owner } from '../helpers/build.js';
import { atTime } from '../helpers/clock.js';
import { customerSession } from '../helpers/customer-session.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { buildWithProviders, stripeEvent } from '../helpers/payment-providers.js';

/**
 * Issue 23: refunds of completed invoices (`POST /self/{shopId}/invoices/{invoiceId}/refund`):
 * card orders through Stripe (the local double of test/helpers/payment-providers.ts), balance
 * orders back to the store balance, manual orders recorded; never more than the total, whatever
 * runs at once.
 */

const SECRET = 'whsec_test_refunds_0001';

/** What was asked of the providers besides the check of the Stripe key when the shop stored it. */
const paymentCalls = (double: { requests: { method: string; path: string }[] }) =>
  double.requests.filter((r) => !(r.method === 'GET' && r.path === '/v1/checkout/sessions')).map((r) => r.path);
const SERIALS = Array.from({ length: 12 }, (_, i) => `REFUND-KEY-${String(i + 1).padStart(2, '0')}-XYZ`);

async function setup(t: TestContext) {
  const { app, double } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: SERIALS });
  const { shopId, productId, keysVariant, serviceVariant } = shop;
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_refunds_0123456789',
      webhookSecret: SECRET,
    }),
  );
  const keys = (quantity = 1) => [{ productId, productVariantId: keysVariant, quantity }];
  const service = (quantity = 1) => [{ productId, productVariantId: serviceVariant, quantity }];
  const place = async (body: object, token?: string) => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      payload: body,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return assertOk({ status: res.statusCode, body: res.json() });
  };
  const invoice = async (id: string) => assertOk(await api.get(`/self/${shopId}/invoices/${id}`));

  /** A card order paid at the double and completed by Stripe's signed callback: answers it and its PaymentIntent. */
  const cardOrder = async (email = 'card.buyer@example.com') => {
    const placed = await place({ customerEmail: email, gateway: 'cardconnect', parts: keys() });
    const session = [...double.stripe.sessions.values()].find((s) => s.metadata.invoiceId === placed.id)!;
    const paid = double.stripe.pay(session.id);
    const event = stripeEvent('checkout.session.completed', paid, SECRET);
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/payments/cardconnect/${shopId}/webhook`,
      headers: event.headers,
      payload: event.payload,
    });
    assert.equal(res.json().data.outcome, 'completed', res.body);
    return { id: placed.id as string, paymentIntent: paid.payment_intent! };
  };
  /** A tip-jar order the owner processed. */
  const tipjarOrder = async (email = 'jar.buyer@example.com', parts = service()) => {
    const placed = await place({ customerEmail: email, gateway: 'tipjar', parts });
    return assertOk(await api.post(`/self/${shopId}/invoices/${placed.id}/process`));
  };
  /** A customer with `amount` on their balance, and a session of theirs to pay with it. */
  const fundedBuyer = async (email: string, amount: number) => {
    const first = await tipjarOrder(email);
    assertOk(await api.post(`/self/${shopId}/customers/${first.customerId}/balance/add`, { amount }));
    return { customerId: first.customerId as number, token: await customerSession(app, shopId, email) };
  };
  const balanceOrder = async (email: string, token: string, parts = service()) => {
    const placed = await place({ customerEmail: email, gateway: 'balance', parts }, token);
    assert.equal(placed.status, 'completed');
    return invoice(placed.id);
  };
  const refund = (id: string, body: object = {}, headers: Record<string, string> = {}) =>
    api.post(`/self/${shopId}/invoices/${id}/refund`, body, headers);
  const customer = async (id: number) => assertOk(await api.get(`/self/${shopId}/customers/${id}`));
  const refundRows = (invoiceId: string) =>
    app.db.kysely
      .selectFrom('invoice_refunds')
      .selectAll()
      .where('shop_id', '=', shopId)
      .where('invoice_id', '=', invoiceId)
      .orderBy('id')
      .execute();
  const refundEvents = async (invoiceId?: string) =>
    (
      await app.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('shop_id', '=', shopId)
        .where('type', '=', 'invoice.refunded')
        .orderBy('created_at')
        .execute()
    )
      .map((e) => JSON.parse(e.payload))
      .filter((p) => invoiceId === undefined || p.invoiceId === invoiceId);
  const publicView = async (id: string) => (await app.inject({ url: `/v2/public/invoices/${id}` })).json().data;
  return {
    app,
    api,
    double,
    ...shop,
    keys,
    service,
    place,
    invoice,
    cardOrder,
    tipjarOrder,
    fundedBuyer,
    balanceOrder,
    refund,
    customer,
    refundRows,
    refundEvents,
    publicView,
  };
}

test('a card order is refunded through Stripe: in part, then the rest; more than is left is a 422, a second full refund a 409', async (t) => {
  const { double, cardOrder, refund, invoice, refundRows, refundEvents, publicView, customer } = await setup(t);
  const { id, paymentIntent } = await cardOrder();
  const { customerId } = await invoice(id);
  assert.equal((await customer(customerId)).totalSpent, 9.99);

  const part = assertOk(await refund(id, { amount: 4, reason: 'One key was used already' }));
  assert.equal(part.status, 'completed', 'a refund keeps the order completed');
  assert.equal(part.refunded, 4);
  assert.equal(double.stripe.refunds.length, 1);
  const [first] = double.stripe.refunds;
  assert.equal(first!.payment_intent, paymentIntent);
  assert.equal(first!.amount, 400, 'minor units');
  assert.deepEqual(first!.metadata, { invoiceId: id });
  const call = double.requests.find((r) => r.path === '/v1/refunds')!;
  assert.match(String(call.headers['idempotency-key']), /\S/, 'an Idempotency-Key, so a retry cannot refund twice');
  assert.deepEqual(
    part.refunds.map((r: Record<string, unknown>) => [r.amount, r.reason, r.method, r.providerRefundId, r.status]),
    [[4, 'One key was used already', 'provider', first!.id, 'succeeded']],
  );
  assert.equal((await customer(customerId)).totalSpent, 5.99, "the buyer's lifetime spend goes down");

  // More than is left: nothing changes, nothing is asked of Stripe.
  const over = await refund(id, { amount: 6 });
  assertError(over, 422, 'unprocessable');
  assert.match(over.body.errors[0], /^amount: at most 5\.99 USD/);
  assertError(await refund(id, { amount: 0 }), 400, 'validation_error');
  assertError(await refund(id, { amount: 1.001 }), 400, 'validation_error');
  assert.equal(double.stripe.refunds.length, 1);
  assert.equal((await invoice(id)).refunded, 4);
  assert.equal((await refundRows(id)).length, 1);

  // No amount: what is left.
  const rest = assertOk(await refund(id, {}));
  assert.equal(rest.refunded, 9.99);
  assert.deepEqual(
    rest.refunds.map((r: { amount: number; method: string }) => [r.amount, r.method]),
    [
      [4, 'provider'],
      [5.99, 'provider'],
    ],
  );
  assert.deepEqual(
    double.stripe.refunds.map((r) => [r.payment_intent, r.amount]),
    [
      [paymentIntent, 400],
      [paymentIntent, 599],
    ],
  );
  const keys = double.requests.filter((r) => r.path === '/v1/refunds').map((r) => r.headers['idempotency-key']);
  assert.equal(new Set(keys).size, 2, 'each refund has its own key');
  assert.equal((await customer(customerId)).totalSpent, 0);

  const again = await refund(id, {});
  assertError(again, 409, 'conflict');
  assert.match(again.body.errors[0], /nothing is left to refund/);
  assertError(await refund(id, { amount: 0.01 }), 409, 'conflict');
  assert.equal(double.stripe.refunds.length, 2);

  const events = await refundEvents(id);
  assert.deepEqual(
    events.map((e) => [e.amount, e.currency, e.reason, e.method]),
    [
      [4, 'USD', 'One key was used already', 'provider'],
      [5.99, 'USD', null, 'provider'],
    ],
  );
  const buyerView = await publicView(id);
  assert.equal(buyerView.refunded, 9.99, 'the buyer sees what went back');
  assert.equal(buyerView.status, 'completed');
});

test('a repeated refund request with the same Idempotency-Key refunds once', async (t) => {
  const { double, cardOrder, refund, refundRows } = await setup(t);
  const { id } = await cardOrder();
  const headers = { 'idempotency-key': 'refund-once-0001' };
  const first = assertOk(await refund(id, { amount: 2 }, headers));
  const second = assertOk(await refund(id, { amount: 2 }, headers));
  assert.deepEqual(second, first);
  assert.equal(double.stripe.refunds.length, 1);
  assert.equal((await refundRows(id)).length, 1);
});

test('when Stripe refuses the refund it is a 502 and nothing is recorded; a later refund works', async (t) => {
  const { double, cardOrder, refund, invoice, refundRows, refundEvents, customer } = await setup(t);
  const { id } = await cardOrder();
  const before = await invoice(id);
  double.failNext('/v1/refunds', 400, 'Charge ch_1 has been disputed');
  const res = await refund(id, { amount: 3, reason: 'asked' });
  assertError(res, 502, 'payment_provider_error');
  assert.match(res.body.errors[0], /^gateway: Stripe .*Charge ch_1 has been disputed/);
  assert.equal(double.stripe.refunds.length, 0);

  const after = await invoice(id);
  assert.equal(after.refunded, 0, 'the held amount was given back');
  assert.deepEqual(after.refunds, []);
  assert.equal(after.status, 'completed');
  assert.deepEqual(await refundRows(id), []);
  assert.deepEqual(await refundEvents(id), []);
  assert.equal((await customer(before.customerId)).totalSpent, 9.99);

  assert.equal(assertOk(await refund(id, { amount: 3 })).refunded, 3);
  assert.equal(double.stripe.refunds.length, 1);
});

test('only a completed invoice can be refunded: pending, cancelled and expired ones are a 409, an unknown one a 404', async (t) => {
  const { app, api, place, keys, refund, invoice, refundRows, shopId } = await setup(t);
  // The expiry worker's run just past the invoice's lifetime (the only pending one then).
  const expired = await place({ customerEmail: 'e@example.com', gateway: 'tipjar', parts: keys() });
  assert.equal(await expireOverdue(atTime(app.ctx, Date.parse(expired.expiresAt) + 1), { shopId }), 1);
  assert.equal((await invoice(expired.id)).status, 'expired');
  const pending = await place({ customerEmail: 'p@example.com', gateway: 'tipjar', parts: keys() });
  const cancelled = await place({ customerEmail: 'c@example.com', gateway: 'tipjar', parts: keys() });
  assertOk(await api.post(`/self/${shopId}/invoices/${cancelled.id}/cancel`));

  for (const [id, status] of [
    [pending.id, 'pending'],
    [cancelled.id, 'cancelled'],
    [expired.id, 'expired'],
  ]) {
    const res = await refund(id, { amount: 1 });
    assertError(res, 409, 'conflict');
    assert.deepEqual(res.body.errors, [`status: is ${status}`]);
    assert.equal((await invoice(id)).refunded, 0);
    assert.deepEqual(await refundRows(id), []);
  }
  assertError(await refund('no-such-invoice', {}), 404, 'not_found');
});

test('a balance order is refunded to the store balance: ledger entry, lifetime spend and event', async (t) => {
  const { app, fundedBuyer, balanceOrder, refund, customer, refundEvents, double, shopId } = await setup(t);
  const { customerId, token } = await fundedBuyer('balance.buyer@example.com', 20);
  const order = await balanceOrder('balance.buyer@example.com', token);
  const before = await customer(customerId);
  assert.equal(before.balance, 15);
  assert.equal(before.totalSpent, 10, 'the processed tip-jar order and the balance order');

  const refunded = assertOk(await refund(order.id, { amount: 3.5, reason: 'late delivery' }));
  assert.equal(refunded.refunds[0].method, 'balance');
  assert.equal(refunded.refunds[0].providerRefundId, null);
  const after = await customer(customerId);
  assert.equal(after.balance, 18.5, 'credited back to the balance');
  assert.equal(after.totalSpent, 6.5);
  const ledger = await app.db.kysely
    .selectFrom('balance_entries')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('customer_id', '=', customerId)
    .where('kind', '=', 'refund')
    .execute();
  assert.equal(ledger.length, 1);
  assert.equal(ledger[0]!.amount, 350);
  assert.equal(ledger[0]!.balance_after, 1850);
  assert.equal(ledger[0]!.invoice_id, order.id);
  assert.equal(ledger[0]!.note, 'late delivery');
  const [event] = await refundEvents(order.id);
  assert.equal(event.invoiceId, order.id);
  assert.equal(event.amount, 3.5);
  assert.equal(event.currency, 'USD');
  assert.equal(event.reason, 'late delivery');
  assert.equal(event.method, 'balance');
  assert.deepEqual(paymentCalls(double), [], 'no provider is asked');

  // The buyer can spend it again.
  assert.equal(
    (await balanceOrder('balance.buyer@example.com', token)).status,
    'completed',
    'the refunded balance pays a new order',
  );
  assert.equal((await customer(customerId)).balance, 13.5);
});

test('a tip-jar order is refunded as recorded: no provider, no balance, the spend goes down', async (t) => {
  const { double, tipjarOrder, refund, customer, refundEvents } = await setup(t);
  const order = await tipjarOrder('jar@example.com');
  const before = await customer(order.customerId);
  const refunded = assertOk(await refund(order.id, { reason: 'sent back by hand' }));
  assert.equal(refunded.refunded, 5);
  assert.deepEqual(
    refunded.refunds.map((r: Record<string, unknown>) => [r.amount, r.method, r.providerRefundId, r.status]),
    [[5, 'recorded', null, 'succeeded']],
  );
  const after = await customer(order.customerId);
  assert.equal(after.balance, before.balance, 'the balance is not touched');
  assert.equal(after.totalSpent, before.totalSpent - 5);
  assert.equal((await refundEvents(order.id))[0].method, 'recorded');
  assert.deepEqual(paymentCalls(double), []);
});

test('concurrent refunds never give back more than the total', async (t) => {
  const {
    app,
    double,
    shopId,
    fundedBuyer,
    balanceOrder,
    tipjarOrder,
    cardOrder,
    refund,
    invoice,
    customer,
    refundRows,
    refundEvents,
  } = await setup(t);
  const { customerId, token } = await fundedBuyer('racer@example.com', 50);
  const byBalance = await balanceOrder('racer@example.com', token);
  const byTipjar = await tipjarOrder('racer@example.com');
  const byCard = await invoice((await cardOrder('racer@example.com')).id);
  const balanceBefore = (await customer(customerId)).balance;

  // Five refunds of 40% each, at once: two fit. The card refunds wait for Stripe between holding
  // the amount and recording the refund, the widest window for another refund to slip in.
  for (const [order, amount] of [
    [byBalance, 2],
    [byTipjar, 2],
    [byCard, 4],
  ] as const) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(order.id, { amount })));
    let made = answers.filter((a) => a.status === 200);
    // Card refunds: one is asked of Stripe at a time per invoice (a 409 while another is under
    // way), so one or two of the five are made; the next one then fits too.
    if (order.gateway === 'cardconnect' && made.length === 1) {
      const next = await refund(order.id, { amount });
      assert.equal(next.status, 200, JSON.stringify(next.body));
      made = [...made, next];
    }
    assert.equal(made.length, 2, answers.map((a) => `${a.status} ${a.body.message}`).join('\n'));
    for (const refused of answers.filter((a) => a.status !== 200)) {
      assert.ok(
        (refused.status === 409 && refused.body.code === 'conflict') ||
          (refused.status === 422 && refused.body.code === 'unprocessable'),
        `${refused.status} ${JSON.stringify(refused.body)}`,
      );
    }
    const rows = await refundRows(order.id);
    assert.deepEqual(
      rows.map((r) => [r.amount, r.status]),
      [
        [amount * 100, 'succeeded'],
        [amount * 100, 'succeeded'],
      ],
    );
    assert.ok(rows.reduce((sum, r) => sum + r.amount, 0) <= order.total * 100);
    assert.equal((await invoice(order.id)).refunded, amount * 2);
    assert.equal((await refundEvents(order.id)).length, 2);
    // Nothing more fits.
    assert.ok([409, 422].includes((await refund(order.id, { amount })).status));
  }
  assert.deepEqual(
    double.stripe.refunds.map((r) => r.amount),
    [400, 400],
    'Stripe was asked for the two that fit, no more',
  );
  // The balance order's two refunds were credited, once each.
  assert.equal((await customer(customerId)).balance, balanceBefore + 4);
  const credits = await app.db.kysely
    .selectFrom('balance_entries')
    .select('amount')
    .where('shop_id', '=', shopId)
    .where('customer_id', '=', customerId)
    .where('kind', '=', 'refund')
    .execute();
  assert.deepEqual(
    credits.map((c) => c.amount),
    [200, 200],
  );
  // What is left can still be refunded; then nothing.
  for (const order of [byBalance, byTipjar, byCard]) {
    assert.equal(assertOk(await refund(order.id, {})).refunded, order.total);
    assertError(await refund(order.id, {}), 409, 'conflict');
  }
});

test("refunds show on the dashboard and in the buyer's view; another account's key gets a 404 and changes nothing", async (t) => {
  const { app, api, tipjarOrder, cardOrder, refund, invoice, publicView, refundRows, shopId } = await setup(t);
  const dashboard = async () =>
    assertOk(await api.get(`/self/${shopId}/dashboard/advanced`)).refundsAndReplacements as Record<string, number>;
  assert.deepEqual(await dashboard(), { count: 0, units: 0, replacements: 0, refunds: 0, refundedAmount: 0 });

  const jar = await tipjarOrder();
  const card = await cardOrder();
  assertOk(await refund(jar.id, { amount: 1.25 }));
  assertOk(await refund(jar.id, {}));
  assertOk(await refund(card.id, { amount: 2 }));
  assert.deepEqual(await dashboard(), { count: 3, units: 0, replacements: 0, refunds: 3, refundedAmount: 7 });
  // A replacement counts beside them.
  assertOk(
    await api.post(`/self/${shopId}/invoices/${card.id}/replacement`, {
      partInvoiceId: (await invoice(card.id)).parts[0].id,
      quantity: 1,
    }),
  );
  assert.deepEqual(await dashboard(), { count: 4, units: 1, replacements: 1, refunds: 3, refundedAmount: 7 });

  assert.equal((await publicView(jar.id)).refunded, 5);
  assert.equal((await publicView(card.id)).refunded, 2);

  // Another account: neither through this shop's id nor through its own shop.
  const stranger = await owner(app);
  const { shopId: strangersShop } = await sellingShop(stranger);
  assertError(await stranger.post(`/self/${shopId}/invoices/${card.id}/refund`, {}), 404, 'not_found');
  assertError(await stranger.post(`/self/${strangersShop}/invoices/${card.id}/refund`, {}), 404, 'not_found');
  assert.equal((await invoice(card.id)).refunded, 2);
  assert.equal((await refundRows(card.id)).length, 1);
  assert.equal((await dashboard()).refunds, 3);
});

test('Stripe not answering keeps the refund pending with its amount held; a later request asks again with the same key and makes no second refund', async (t) => {
  const { app, double, cardOrder, refund, invoice, refundRows, refundEvents, shopId } = await setup(t);
  const { id } = await cardOrder();
  // A 500 on the call and on the library's one retry: Stripe's answer is unknown.
  double.failNext('/v1/refunds', 500, 'An unknown error occurred', 2);
  const lost = await refund(id, { amount: 3, reason: 'partial' });
  assertError(lost, 502, 'payment_provider_error');
  assert.match(lost.body.message, /kept as pending/);
  const [row] = await refundRows(id);
  assert.equal(row!.status, 'pending');
  assert.equal((await invoice(id)).refunded, 3, 'the amount stays held: no other refund can take it');
  assert.equal((await refundEvents(id)).length, 0);
  const keys = double.requests.filter((r) => r.path === '/v1/refunds').map((r) => r.headers['idempotency-key']);
  assert.equal(new Set(keys).size, 1, 'the retry used the same key');

  // While it may still be under way, another refund is a 409 and asks nothing.
  assertError(await refund(id, { amount: 1 }), 409, 'conflict');
  assert.equal(double.requests.filter((r) => r.path === '/v1/refunds').length, 2);

  // Minutes later (the row made older), the next request settles that refund, with its own key.
  await app.db.kysely
    .updateTable('invoice_refunds')
    .set({ created_at: Date.now() - 60 * 60_000 })
    .where('shop_id', '=', shopId)
    .where('id', '=', row!.id)
    .execute();
  const settled = assertOk(await refund(id, { amount: 1 }));
  assert.deepEqual(
    settled.refunds.map((r: { amount: number; status: string; method: string }) => [r.amount, r.status, r.method]),
    [[3, 'succeeded', 'provider']],
    'the pending refund was made, not the new one',
  );
  assert.equal(settled.refunded, 3);
  assert.equal(double.stripe.refunds.length, 1);
  assert.equal(double.stripe.refunds[0]!.amount, 300);
  assert.equal(
    double.requests.filter((r) => r.path === '/v1/refunds').at(-1)!.headers['idempotency-key'],
    keys[0],
    'asked again with the same key',
  );
  assert.equal((await refundEvents(id)).length, 1);
});

test("a balance order refunded after the shop changed currency credits the balance in the shop's currency", async (t) => {
  const { api, shopId, fundedBuyer, balanceOrder, refund, customer } = await setup(t);
  const { customerId, token } = await fundedBuyer('mover@example.com', 20);
  const order = await balanceOrder('mover@example.com', token);
  assert.equal(order.currency, 'USD');
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'JPY' }));
  const before = await customer(customerId);
  assertOk(await refund(order.id, {}));
  const after = await customer(customerId);
  // 5.00 USD is 5 JPY: the shop's balances were re-expressed the same way (prices keep their numbers).
  assert.equal(after.balance, before.balance + order.total);
  assert.equal(after.totalSpent, before.totalSpent - order.total);
});

test('the buyer is mailed each refund: how much, how it comes back, what was refunded so far, and the reason', async (t) => {
  const { app, shopId, fundedBuyer, balanceOrder, tipjarOrder, refund } = await setup(t);
  const { token } = await fundedBuyer('told@example.com', 20);
  const byBalance = await balanceOrder('told@example.com', token);
  const byTipjar = await tipjarOrder('told@example.com');
  assertOk(await refund(byBalance.id, { amount: 2, reason: 'one key did not work' }));
  assertOk(await refund(byTipjar.id, {}));
  const mails = await app.db.kysely
    .selectFrom('mail_outbox')
    .select(['to_address', 'subject', 'body_text'])
    .where('shop_id', '=', shopId)
    .where('subject', 'like', 'Refund for your order %')
    .orderBy('id')
    .execute();
  assert.equal(mails.length, 2);
  const [balanceMail, tipjarMail] = mails;
  assert.equal(balanceMail!.to_address, 'told@example.com');
  const { payment_code: code } = await app.db.kysely
    .selectFrom('invoices')
    .select('payment_code')
    .where('id', '=', byBalance.id)
    .executeTakeFirstOrThrow();
  // The subject names the order by its payment reference; the invoice id, which opens it, is only in the link.
  assert.equal(balanceMail!.subject, `Refund for your order ${code!.slice(0, 4)}-${code!.slice(4)} from Selling Shop`);
  assert.ok(!balanceMail!.subject.includes(byBalance.id));
  assert.match(balanceMail!.body_text, /refunded \$2\.00 of your order/);
  assert.match(balanceMail!.body_text, /added to your balance in this shop/);
  assert.match(balanceMail!.body_text, /Refunded so far: \$2\.00 of \$5\.00/);
  assert.match(balanceMail!.body_text, /one key did not work/);
  assert.match(tipjarMail!.body_text, /The shop sends it back to you the way you paid/);
  assert.match(tipjarMail!.body_text, /Refunded so far: \$5\.00 of \$5\.00/);
});

test('applied provider events are swept after their retention; recent ones and claims in flight stay', async (t) => {
  const { app, shopId } = await setup(t);
  const now = Date.now();
  const row = (event_id: string, outcome: string, created_at: number) => ({
    shop_id: shopId,
    provider: 'cardconnect',
    event_id,
    invoice_id: null,
    type: 'checkout.session.completed',
    outcome,
    created_at,
  });
  await app.db.kysely
    .insertInto('payment_events')
    .values([
      row('evt_old', 'completed', now - PAYMENT_EVENT_RETENTION_MS - 1),
      row('evt_recent', 'completed', now - 1000),
      row('evt_stuck', 'handling', now - PAYMENT_EVENT_RETENTION_MS - 1),
    ])
    .execute();
  assert.equal(await sweepPaymentEvents(app.ctx, now), 1);
  const left = await app.db.kysely.selectFrom('payment_events').select('event_id').orderBy('event_id').execute();
  assert.deepEqual(
    left.map((r) => r.event_id),
    ['evt_recent', 'evt_stuck'],
  );
});

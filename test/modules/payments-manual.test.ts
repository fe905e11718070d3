import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { getPage, textById } from '../helpers/web-forms.js';

/**
 * Issue 23: the manual methods (`tipjar`, `walletemail`, `mobilecash`, `wallet-ff`), where the
 * buyer sends the money outside shopd and the owner confirms it: exact instructions in the
 * checkout answer, on the invoice page and in the checkout mail; `process` with the payment's
 * reference.
 */

/** Each manual gateway, its settings, and what the buyer must be told for a 9.99 USD order with reference `id`. */
const METHODS = [
  {
    gateway: 'tipjar',
    settings: { handle: 'corner.jar_42' },
    shown: { handle: 'corner.jar_42' },
    instructions: (id: string) => `Send 9.99 USD to the tip jar "corner.jar_42" with the note ${id}.`,
  },
  {
    gateway: 'walletemail',
    settings: { email: 'wallet.owner@shop.example' },
    shown: { email: 'wallet.owner@shop.example' },
    instructions: (id: string) => `Send 9.99 USD to wallet.owner@shop.example with the reference ${id}.`,
  },
  {
    gateway: 'mobilecash',
    settings: { cashtag: '$CornerShop' },
    shown: { cashtag: '$CornerShop' },
    instructions: (id: string) => `Send 9.99 USD to $CornerShop with the note ${id}.`,
  },
  {
    gateway: 'wallet-ff',
    settings: { email: 'ff.owner@shop.example' },
    shown: { email: 'ff.owner@shop.example' },
    instructions: (id: string) => `Send 9.99 USD to ff.owner@shop.example with the reference ${id}.`,
  },
] as const;

/** The text of a page with the entities the renderer writes decoded. */
const decoded = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

async function setup(t: TestContext) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, {
    serials: ['MANUAL-KEY-ALPHA-1', 'MANUAL-KEY-BRAVO-2', 'MANUAL-KEY-CHARLIE-3', 'MANUAL-KEY-DELTA-4'],
  });
  const { shopId, productId, keysVariant } = shop;
  for (const method of METHODS)
    assertOk(
      await api.put(`/self/${shopId}/settings/payments/${method.gateway}`, { enabled: true, ...method.settings }),
    );
  const { subdomain } = assertOk(await api.get(`/self/${shopId}/settings`));
  const checkout = async (gateway: string) =>
    assertOk(
      await api.post(`/v2/public/shops/${shopId}/invoices`, {
        customerEmail: 'manual.buyer@example.com',
        gateway,
        parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
      }),
    );
  const invoice = async (id: string) => assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
  const process = (id: string, body?: object) =>
    app
      .inject({
        method: 'POST',
        url: `/self/${shopId}/invoices/${id}/process`,
        headers: { authorization: `Bearer ${api.key}` },
        ...(body === undefined ? {} : { payload: body }),
      })
      .then((r) => ({ status: r.statusCode, body: r.json() }));
  const checkoutMail = (reference: string) =>
    app.db.kysely
      .selectFrom('mail_outbox')
      .selectAll()
      .where('shop_id', '=', shopId)
      .where('subject', '=', `Your order ${reference} from Selling Shop: how to pay`)
      .execute();
  return { app, api, ...shop, base: `/s/${subdomain}`, checkout, invoice, process, checkoutMail };
}

test('each manual method tells the buyer exactly how to pay: in the checkout answer, on the invoice page and in the mail', async (t) => {
  const { app, base, checkout, checkoutMail } = await setup(t);
  for (const method of METHODS) {
    const placed = await checkout(method.gateway);
    // The short payment reference, never the invoice id (issue 36, M4).
    const reference = placed.payment.reference as string;
    assert.match(reference, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const instructions = method.instructions(reference);
    assert.equal(placed.status, 'pending');
    assert.deepEqual(placed.payment, {
      gateway: method.gateway,
      amount: 9.99,
      currency: 'USD',
      reference,
      instructions,
      ...method.shown,
    });

    // The page and the mail say the same in the buyer's language, the amount written as they write every amount.
    const told = instructions.replace('9.99 USD', '$9.99');
    const page = await getPage(app, `${base}/invoices/${placed.id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.ok(decoded(page.body).includes(told), `${method.gateway}: the page says "${told}"`);
    assert.equal(textById(page.body, 'pay-amount'), '$9.99');
    assert.equal(textById(page.body, 'pay-reference'), reference, 'the payment reference is what to quote');
    for (const [field, value] of Object.entries(method.shown))
      assert.equal(textById(page.body, `pay-${field}`), value, `${method.gateway}: the ${field} to pay to`);
    assert.equal(textById(page.body, 'pay-now'), undefined, 'no provider page to go to');

    const mails = await checkoutMail(reference);
    assert.equal(mails.length, 1, `${method.gateway}: one checkout mail`);
    const [mail] = mails;
    assert.equal(mail!.to_address, 'manual.buyer@example.com');
    assert.ok(mail!.body_text.split('\n').includes(told), `${method.gateway}: the mail's text says how to pay`);
    assert.ok(decoded(mail!.body_html ?? '').includes(told), `${method.gateway}: and its HTML`);
  }
});

test('processing with the payment reference completes the invoice and keeps the reference', async (t) => {
  const { app, checkout, invoice, process } = await setup(t);
  const placed = await checkout('walletemail');
  const done = assertOk(await process(placed.id, { paymentReference: 'TX-123' }));
  assert.equal(done.status, 'completed');
  assert.equal(done.payment.reference, 'TX-123');
  assert.deepEqual(done.parts[0].deliverables, ['MANUAL-KEY-ALPHA-1']);
  assert.equal((await invoice(placed.id)).payment.reference, 'TX-123');
  // The buyer's view has its goods and no more instructions.
  const publicView = (await app.inject({ url: `/v2/public/invoices/${placed.id}` })).json().data;
  assert.equal(publicView.status, 'completed');
  assert.equal(publicView.payment, null);

  // Surrounding blanks are not kept; a reference of 200 characters is.
  const trimmed = await checkout('mobilecash');
  assert.equal(
    assertOk(await process(trimmed.id, { paymentReference: '  cash-app 77  ' })).payment.reference,
    'cash-app 77',
  );
  const longest = await checkout('wallet-ff');
  assert.equal(
    assertOk(await process(longest.id, { paymentReference: 'R'.repeat(200) })).payment.reference,
    'R'.repeat(200),
  );
});

test('processing without a body, or with no reference, still completes the invoice', async (t) => {
  const { checkout, process } = await setup(t);
  const bare = await checkout('tipjar');
  const done = assertOk(await process(bare.id));
  assert.equal(done.status, 'completed');
  assert.equal(done.payment.reference, null);
  const empty = await checkout('tipjar');
  assert.equal(assertOk(await process(empty.id, {})).payment.reference, null);
  const explicit = await checkout('tipjar');
  assert.equal(assertOk(await process(explicit.id, { paymentReference: null })).payment.reference, null);
});

test('a payment reference of 201 characters, or an empty one, is a 400 that changes nothing', async (t) => {
  const { app, checkout, invoice, process, shopId } = await setup(t);
  const placed = await checkout('tipjar');
  for (const paymentReference of ['R'.repeat(201), '']) {
    const res = await process(placed.id, { paymentReference });
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /paymentReference/);
  }
  const still = await invoice(placed.id);
  assert.equal(still.status, 'pending');
  assert.equal(still.payment.reference, null);
  assert.deepEqual(still.parts[0].deliverables, []);
  const completed = await app.db.kysely
    .selectFrom('events')
    .select('type')
    .where('shop_id', '=', shopId)
    .where('type', '=', 'invoice.completed')
    .execute();
  assert.equal(completed.length, 0);
  // The same order is then processed as usual.
  assert.equal(assertOk(await process(placed.id, { paymentReference: 'R'.repeat(200) })).status, 'completed');
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { attachFiles, grantDownloads } from '../../src/modules/files/index.js';
import { issueLicenses } from '../../src/modules/licenses/index.js';
import { owner } from '../helpers/build.js';
import { pathOf, storeFile } from '../helpers/downloads.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { buildWithProviders, deliverCallback, stripeEvent } from '../helpers/payment-providers.js';

/**
 * Issue 36, item 7: Stripe disputes. `charge.dispute.created` finds the order by its
 * PaymentIntent, records the dispute beside the invoice (whose status stays), ends its licences
 * and downloads, blacklists the buyer when the shop chose so, and the evidence (views of the
 * invoice, downloads, licence activations, purchase IP, terms) reaches Stripe's disputes API,
 * by the owner's action or automatically.
 */

const SECRET = 'whsec_test_dispute_secret_01';
const BUYER_IP = '203.0.113.9';
const VIEWER_IP = '198.51.100.7';
const PAGE_IP = '192.0.2.44';
const LICENSE_KEY = 'DISPUTE-LICENSE-KEY-0001';

async function setup(t: TestContext, protection: { disputeBlacklist?: boolean; disputeAutoSubmit?: boolean } = {}) {
  const { app, double } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: ['SERIAL-SECRET-AAAA-1', 'SERIAL-SECRET-BBBB-2'] });
  const { shopId } = shop;
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
      webhookSecret: SECRET,
    }),
  );
  if (Object.keys(protection).length > 0) assertOk(await api.put(`/self/${shopId}/settings/protection`, protection));
  assertOk(
    await api.put(`/self/${shopId}/settings/terms`, { terms: 'Digital goods are not refundable once downloaded.' }),
  );
  const file = await storeFile(app, shopId, 'manual.pdf', Buffer.from('%PDF-1.4 the manual'));
  await attachFiles(app.db.kysely, shopId, shop.serviceVariant, [file.id]);
  const callback = (event: { payload: string; headers: Record<string, string> }) =>
    deliverCallback(app, 'cardconnect', shopId, event);

  /** A card order of one key, paid at the double, with a download and a licence, viewed, downloaded and activated. */
  const buyPaidOrder = async () => {
    const placed = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      remoteAddress: BUYER_IP,
      headers: { 'user-agent': 'BuyerAgent/1.0' },
      payload: {
        customerEmail: 'disputer@example.com',
        gateway: 'cardconnect',
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
      },
    });
    assert.equal(placed.statusCode, 200, placed.body);
    const id = placed.json().data.id as string;
    const session = [...double.stripe.sessions.values()].find((s) => s.metadata.invoiceId === id)!;
    const paid = double.stripe.pay(session.id);
    assert.equal(
      (await callback(stripeEvent('checkout.session.completed', paid, SECRET))).body.data.outcome,
      'completed',
    );
    const done = assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
    await app.db.kysely.transaction().execute(async (trx) => {
      await grantDownloads(
        trx,
        shopId,
        id,
        shop.serviceVariant,
        { downloadLimit: 5, linkHours: 24 },
        app.ctx.clock.now(),
      );
      await issueLicenses(
        trx,
        shopId,
        {
          invoiceId: id,
          productId: shop.productId,
          variantId: shop.keysVariant,
          customerId: done.customerId,
          email: 'disputer@example.com',
          keys: [LICENSE_KEY],
          activationLimit: 3,
          expiresAt: null,
        },
        app.ctx.clock.now(),
      );
    });
    const view = await app.inject({
      url: `/v2/public/invoices/${id}`,
      remoteAddress: VIEWER_IP,
      headers: { 'user-agent': 'ViewerAgent/2.0' },
    });
    assert.equal(view.statusCode, 200, view.body);
    // The storefront's invoice page counts as a view too.
    const page = await app.inject({
      url: pathOf(view.json().data.url),
      remoteAddress: PAGE_IP,
      headers: { 'user-agent': 'PageAgent/4.0', accept: 'text/html' },
    });
    assert.equal(page.statusCode, 200);
    const link = pathOf(view.json().data.downloads[0].url);
    const download = await app.inject({
      url: link,
      remoteAddress: VIEWER_IP,
      headers: { 'user-agent': 'Downloader/3.0' },
    });
    assert.equal(download.statusCode, 200);
    const activated = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/licenses/activate`,
      remoteAddress: PAGE_IP,
      headers: { 'user-agent': 'Activator/5.0' },
      payload: { licenseKey: LICENSE_KEY, instanceName: 'Buyer laptop' },
    });
    assert.equal(activated.statusCode, 200, activated.body);
    return { id, paid, link };
  };
  return { app, api, double, shop, shopId, callback, buyPaidOrder };
}

test('a dispute is recorded and shown on the order; its licences and downloads end; the invoice keeps its status', async (t) => {
  const { app, api, double, shopId, callback, buyPaidOrder } = await setup(t);
  const { id, paid, link } = await buyPaidOrder();
  assertOk(
    await api.post(`/self/${shopId}/webhooks`, { url: 'http://127.0.0.1:9/disputes', events: ['invoice.disputed'] }),
  );
  const opened = double.stripe.openDispute(paid.payment_intent!, 'product_not_received');
  const answer = await callback(stripeEvent('charge.dispute.created', opened, SECRET));
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.data.outcome, 'disputed');

  const view = assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
  assert.equal(view.status, 'completed', 'the invoice keeps its status');
  assert.equal(view.dispute.providerDisputeId, opened.id);
  assert.equal(view.dispute.status, 'needs_response');
  assert.equal(view.dispute.reason, 'product_not_received');
  assert.equal(view.dispute.amount, 9.99);

  assert.equal((await app.inject({ url: link })).statusCode, 410, 'the download link is refused');
  const validated = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/licenses/validate`,
    payload: { licenseKey: LICENSE_KEY },
  });
  assert.equal(validated.json().data.valid, false);
  assert.equal(validated.json().data.license.status, 'revoked');
  const disputed = await app.db.kysely
    .selectFrom('events')
    .select('payload')
    .where('shop_id', '=', shopId)
    .where('type', '=', 'invoice.disputed')
    .execute();
  assert.equal(disputed.length, 1, 'one invoice.disputed event');
  const payload = JSON.parse(disputed[0]!.payload);
  assert.deepEqual(
    [payload.invoiceId, payload.providerDisputeId, payload.status, payload.reason, payload.amount, payload.currency],
    [id, opened.id, 'needs_response', 'product_not_received', 9.99, 'USD'],
  );
  assert.equal(payload.invoice.status, 'completed', 'the webhook carries the invoice as the owner sees it');
  assert.equal(payload.invoice.dispute.providerDisputeId, opened.id);

  // Not blacklisted (the default), nothing sent to Stripe (no auto-submit).
  assert.equal(assertOk(await api.get(`/self/${shopId}/blacklist`)).items.length, 0);
  assert.equal(double.stripe.disputes.get(opened.id)!.submissions, 0);

  // The same event again is a duplicate; a later one updates the dispute.
  assert.equal(
    (await callback(stripeEvent('charge.dispute.created', opened, SECRET, answer.body.data.eventId))).body.data.outcome,
    'duplicate',
  );
  const closed = await callback(stripeEvent('charge.dispute.closed', { ...opened, status: 'lost' }, SECRET));
  assert.equal(closed.body.data.outcome, 'dispute-updated');
  const list = assertOk(await api.get(`/self/${shopId}/disputes`));
  assert.equal(list.items.length, 1);
  assert.equal(list.items[0].status, 'lost');
  assert.equal(list.items[0].invoiceId, id);
});

test('the evidence holds the views, downloads and activations, no keys; the owner submits it to Stripe once', async (t) => {
  const { app, api, double, shopId, callback, buyPaidOrder } = await setup(t);
  const { paid } = await buyPaidOrder();
  // The terms change after the order: the evidence quotes the ones the order was placed under.
  assertOk(await api.put(`/self/${shopId}/settings/terms`, { terms: 'New terms: everything is refundable.' }));
  const opened = double.stripe.openDispute(paid.payment_intent!);
  assert.equal((await callback(stripeEvent('charge.dispute.created', opened, SECRET))).body.data.outcome, 'disputed');
  const [listed] = assertOk(await api.get(`/self/${shopId}/disputes`)).items;
  const detail = assertOk(await api.get(`/self/${shopId}/disputes/${listed.id}`));
  const { evidence } = detail;
  assert.equal(evidence.customer.email, 'disputer@example.com');
  assert.equal(evidence.customer.purchaseIp, BUYER_IP);
  assert.deepEqual(
    evidence.invoiceViews.map((v: { ip: string; userAgent: string }) => [v.ip, v.userAgent]),
    [
      [VIEWER_IP, 'ViewerAgent/2.0'],
      [PAGE_IP, 'PageAgent/4.0'],
    ],
  );
  assert.deepEqual(
    evidence.downloads.map((d: { file: string; ip: string; userAgent: string }) => [d.file, d.ip, d.userAgent]),
    [['manual.pdf', VIEWER_IP, 'Downloader/3.0']],
  );
  assert.deepEqual(
    evidence.licenseActivations.map((a: { instance: string; ip: string; userAgent: string }) => [
      a.instance,
      a.ip,
      a.userAgent,
    ]),
    [['Buyer laptop', PAGE_IP, 'Activator/5.0']],
  );
  assert.equal(evidence.delivered.items.length, 1);
  assert.ok(evidence.delivered.at);
  assert.match(evidence.terms, /not refundable/);
  assert.equal(evidence.termsAtCheckout, true);
  const text = JSON.stringify(detail);
  assert.doesNotMatch(text, /SERIAL-SECRET|DISPUTE-LICENSE-KEY/, 'the items are named, the keys are not shown');
  assert.equal(detail.submittedEvidence, null);

  const submitted = assertOk(await api.post(`/self/${shopId}/disputes/${listed.id}/submit`));
  assert.equal(submitted.status, 'under_review');
  assert.ok(submitted.evidenceSubmittedAt);
  const atStripe = double.stripe.disputes.get(opened.id)!;
  assert.equal(atStripe.submissions, 1);
  assert.equal(atStripe.evidence.customer_email_address, 'disputer@example.com');
  assert.equal(atStripe.evidence.customer_purchase_ip, BUYER_IP);
  assert.match(
    atStripe.evidence.access_activity_log!,
    new RegExp(`viewed the invoice page from ${VIEWER_IP.replace(/\./g, '\\.')}`),
  );
  assert.match(atStripe.evidence.access_activity_log!, /downloaded "manual\.pdf"/);
  assert.match(atStripe.evidence.access_activity_log!, /on "Buyer laptop" from 192\.0\.2\.44 \(Activator\/5\.0\)/);
  assert.match(
    atStripe.evidence.uncategorized_text!,
    /placed under \(the buyer accepted them at checkout\):\nDigital goods are not refundable/,
  );
  assert.doesNotMatch(atStripe.evidence.uncategorized_text!, /everything is refundable/);
  assert.doesNotMatch(JSON.stringify(atStripe.evidence), /SERIAL-SECRET|DISPUTE-LICENSE-KEY/);
  assert.deepEqual(submitted.submittedEvidence, atStripe.evidence);

  assertError(await api.post(`/self/${shopId}/disputes/${listed.id}/submit`), 409, 'conflict');
  assert.equal(double.stripe.disputes.get(opened.id)!.submissions, 1, 'submitted once');

  // Each version of the terms is kept once; an order placed before they were recorded (no
  // terms_hash) is shown the shop's terms as they are now, and says so.
  const kept = await app.db.kysely.selectFrom('invoice_terms').select('terms').where('shop_id', '=', shopId).execute();
  assert.deepEqual(
    kept.map((k) => k.terms),
    ['Digital goods are not refundable once downloaded.'],
  );
  await app.db.kysely.updateTable('invoices').set({ terms_hash: null }).where('id', '=', listed.invoiceId).execute();
  const older = assertOk(await api.get(`/self/${shopId}/disputes/${listed.id}`)).evidence;
  assert.equal(older.terms, 'New terms: everything is refundable.');
  assert.equal(older.termsAtCheckout, false);
});

test('with disputeBlacklist and disputeAutoSubmit, the buyer is blacklisted and the evidence goes to Stripe at once', async (t) => {
  const { api, double, shopId, callback, buyPaidOrder } = await setup(t, {
    disputeBlacklist: true,
    disputeAutoSubmit: true,
  });
  const { id, paid } = await buyPaidOrder();
  const opened = double.stripe.openDispute(paid.payment_intent!);
  assert.equal((await callback(stripeEvent('charge.dispute.created', opened, SECRET))).body.data.outcome, 'disputed');
  const blocked = assertOk(await api.get(`/self/${shopId}/blacklist`)).items.map(
    (i: { type: string; data: string }) => [i.type, i.data],
  );
  assert.deepEqual(blocked.sort(), [
    ['email', 'disputer@example.com'],
    ['ip', BUYER_IP],
  ]);
  const atStripe = double.stripe.disputes.get(opened.id)!;
  assert.equal(atStripe.submissions, 1, 'submitted automatically');
  assert.equal(atStripe.evidence.customer_email_address, 'disputer@example.com');
  const view = assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
  assert.equal(view.dispute.status, 'under_review');
  assert.ok(view.dispute.evidenceSubmittedAt);
});

test("another account's key gets 404 for the shop's disputes; a dispute of another shop's payment is ignored", async (t) => {
  const { app, double, shopId, callback, buyPaidOrder } = await setup(t);
  const { paid } = await buyPaidOrder();
  const opened = double.stripe.openDispute(paid.payment_intent!);
  await callback(stripeEvent('charge.dispute.created', opened, SECRET));
  const disputeId = (await app.db.kysely.selectFrom('disputes').select('id').executeTakeFirstOrThrow()).id;
  const other = await owner(app);
  const theirs = await sellingShop(other);
  assertError(await other.get(`/self/${shopId}/disputes`), 404, 'not_found');
  assertError(await other.get(`/self/${shopId}/disputes/${disputeId}`), 404, 'not_found');
  assertError(await other.post(`/self/${shopId}/disputes/${disputeId}/submit`), 404, 'not_found');
  assertError(await other.get(`/self/${theirs.shopId}/disputes/${disputeId}`), 404, 'not_found');
  assertError(await other.post(`/self/${theirs.shopId}/disputes/${disputeId}/submit`), 404, 'not_found');
  assert.equal(assertOk(await other.get(`/self/${theirs.shopId}/disputes`)).items.length, 0);
  // The other shop, given the same payment's dispute under its own secret, finds no order of its own.
  assertOk(
    await other.put(`/self/${theirs.shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_other',
      webhookSecret: 'whsec_other_shop_secret',
    }),
  );
  const cross = await deliverCallback(
    app,
    'cardconnect',
    theirs.shopId,
    stripeEvent('charge.dispute.created', opened, 'whsec_other_shop_secret'),
  );
  assert.equal(cross.body.data.outcome, 'ignored');
  assert.equal(double.stripe.disputes.get(opened.id)!.submissions, 0);
});

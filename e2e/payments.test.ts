import assert from 'node:assert/strict';
import { onEnd } from '../test/helpers/build.js';
import { startProviderDouble } from '../test/helpers/payment-providers.js';
import { browse, e2eTest, ok, onThisServer, seedShop, startServer } from './harness.js';

/**
 * A card payment in a browser, end to end against the local double of Stripe
 * (test/helpers/payment-providers.ts): the buyer checks out with the card gateway, follows the
 * invoice page's "Pay … now" link to the double's hosted card page, pays there, and comes back
 * (the session's success URL) to the invoice page showing the key. The double sends the signed
 * `checkout.session.completed` to the shop's callback before it sends the buyer back, as Stripe
 * does. The owner then refunds the order through the API, and Stripe is asked for the refund.
 */

const KEY = 'CARD-E2E-KEY-0001';
const WEBHOOK_SECRET = 'whsec_e2e_card_secret_0001';

e2eTest('a buyer pays by card on the provider page and gets the key; the owner refunds it', async (t) => {
  const double = await startProviderDouble();
  onEnd(t, () => double.close());
  const server = await startServer(t, { PAYMENTS_STRIPE_API_URL: double.url });
  const shop = await seedShop(server, { keys: [KEY] });
  const { api } = server;
  ok(
    await api.put(`/self/${shop.shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_e2e_4eC39HqLyjWDarjtT1zdp7dc',
      webhookSecret: WEBHOOK_SECRET,
    }),
  );
  double.stripe.callback = () => ({
    url: `${server.url}/v2/public/payments/cardconnect/${shop.shopId}/webhook`,
    secret: WEBHOOK_SECRET,
  });

  const buyer = await browse(t, { label: 'buyer' });
  const { page, shot } = buyer;

  await page.goto(`${shop.home}/`);
  await page.getByRole('heading', { name: 'Pixel Keys', level: 1 }).waitFor();
  await shot('home');
  await page.getByRole('link', { name: 'Game Key' }).click();
  await page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();
  await shot('product');
  await page.getByRole('button', { name: 'Buy now' }).click();

  await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
  const card = page.getByRole('radio', { name: 'Card' });
  await card.check();
  assert.ok(await card.isChecked(), 'the card gateway is chosen');
  await page.getByLabel('E-mail').fill('card.buyer@example.com');
  await shot('checkout-card');
  await page.getByRole('button', { name: 'Place order' }).click();

  // The invoice page: waiting for the payment, with the way to the provider's page.
  await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'How to pay' }).waitFor();
  await page.getByText('Waiting for payment').waitFor();
  await page.getByText("Pay $9.99 by card on Stripe's secure payment page.").waitFor();
  const payLink = page.getByRole('link', { name: 'Pay $9.99 now' });
  await payLink.waitFor();
  assert.equal(await page.getByText(KEY).count(), 0, 'no key before the payment');
  const invoiceUrl = page.url();
  const invoiceId = decodeURIComponent(new URL(invoiceUrl).pathname.split('/').pop()!);
  assert.match(new URL(invoiceUrl).pathname, new RegExp(`^/s/${shop.subdomain}/invoices/`));
  const session = [...double.stripe.sessions.values()].find((s) => s.metadata.invoiceId === invoiceId);
  assert.ok(session, `a Checkout Session for ${invoiceId}`);
  const payPage = session.url;
  assert.equal(await payLink.getAttribute('href'), payPage, 'the link opens the Checkout Session');
  // Stripe sends the buyer back to the invoice's link under PUBLIC_URL, a port this test server
  // does not listen on: the double sends the buyer to the same page here (as `onThisServer` does
  // for the links in mail).
  const returnUrl = session.success_url;
  session.success_url = onThisServer(server, returnUrl);
  assert.equal(session.success_url, invoiceUrl, 'the provider returns the buyer to the invoice page');
  await shot('invoice-pay-link');

  // The provider's page: the amount of the order, one button.
  await payLink.click();
  await page.getByRole('heading', { name: 'Test card page', level: 1 }).waitFor();
  await page.getByText('999 usd').waitFor();
  await shot('provider-card-page');
  // The double answers the button once the shop has taken its signed callback (else a 500 saying why).
  const [paid] = await Promise.all([
    page.waitForResponse((r) => r.url() === payPage && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Pay', exact: true }).click(),
  ]);
  assert.equal(paid.status(), 303, paid.status() === 303 ? '' : await paid.text());

  // Back on the invoice page, completed, with the key.
  await page.getByRole('heading', { name: 'Your items' }).waitFor();
  await page.getByText(KEY).waitFor();
  await page.getByText('Completed', { exact: true }).waitFor();
  assert.equal(page.url(), invoiceUrl, 'the provider sends the buyer back to the invoice page');
  assert.equal(await page.getByRole('heading', { name: 'How to pay' }).count(), 0, 'no payment box once paid');
  await shot('invoice-completed');

  // What the owner sees: completed by the callback, with the PaymentIntent to refund.
  const invoice = ok(await api.get(`/self/${shop.shopId}/invoices/${invoiceId}`));
  assert.equal(invoice.status, 'completed');
  assert.equal(invoice.gateway, 'cardconnect');
  assert.equal(session.payment_status, 'paid');
  assert.match(String(session.payment_intent), /^pi_/);
  assert.equal(invoice.payment.reference, session.payment_intent, 'the PaymentIntent is kept to refund it');
  assert.equal(invoice.payment.providerId, session.id);
  assert.equal(session.amount_total, Math.round(invoice.total * 100), 'the session asked for the total in cents');
  assert.equal(session.amount_total, 999);
  assert.equal(session.currency, 'usd');
  assert.equal(returnUrl, invoice.url, "the invoice's own link");
  const completedEvents = await server.app.db.kysely
    .selectFrom('events')
    .select('id')
    .where('shop_id', '=', shop.shopId)
    .where('type', '=', 'invoice.completed')
    .execute();
  assert.equal(completedEvents.length, 1, 'completed once');

  // The owner refunds the order in full: Stripe is asked, the buyer's page says so.
  ok(await api.post(`/self/${shop.shopId}/invoices/${invoiceId}/refund`, {}));
  assert.equal(double.stripe.refunds.length, 1, 'one refund at Stripe');
  const [refund] = double.stripe.refunds;
  assert.equal(refund!.payment_intent, session.payment_intent);
  assert.equal(refund!.amount, 999);
  const refunded = ok(await api.get(`/self/${shop.shopId}/invoices/${invoiceId}`));
  assert.equal(refunded.status, 'completed', 'a refunded order keeps its status');
  assert.equal(refunded.refunded, 9.99);
  assert.equal(refunded.refunds.length, 1);
  assert.equal(refunded.refunds[0].method, 'provider');
  assert.equal(refunded.refunds[0].providerRefundId, refund!.id);

  await page.reload();
  await page.getByText('This order was refunded ($9.99).').waitFor();
  await shot('invoice-refunded');
});

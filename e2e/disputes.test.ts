import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { recordDispute } from '../src/modules/disputes/index.js';
import {
  browse,
  e2eTest,
  ok,
  ownerWithPassword,
  type Server,
  seedShop,
  signInToAdmin,
  startServer,
} from './harness.js';

/**
 * The admin's Disputes screen (issue 36, item 7): a dispute Stripe reported is listed, opens with
 * the evidence shopd assembled (views of the invoice, the buyer, the terms), and the order shows it.
 */

/** Signs the test server's owner in to the admin. */
async function signIn(page: Page, server: Server) {
  await signInToAdmin(page, server, await ownerWithPassword(server));
}

const expected = (url: URL, status: number) => url.pathname === '/self/session' && status === 401;

e2eTest('the owner sees a dispute, its evidence, and the dispute on its order', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server, { terms: 'No refunds once the key is revealed.' });
  const placed = ok(
    await server.api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'chargeback@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.variantId, quantity: 1 }],
    }),
  );
  ok(await server.api.post(`/self/${shop.shopId}/invoices/${placed.id}/process`));
  ok(await server.api.get(`/v2/public/invoices/${placed.id}`)); // a view of the invoice
  // Stripe's dispute finds a card order by its PaymentIntent: the order is made one
  // (test/modules/disputes.test.ts goes through the Stripe double).
  await server.app.db.kysely
    .updateTable('invoices')
    .set({ gateway: 'cardconnect', payment_source: 'provider', payment_reference: 'pi_e2e_dispute' })
    .where('id', '=', placed.id)
    .execute();
  const context = { secrets: server.app.secrets, endpoints: server.app.config.payments, log: server.app.log };
  const facts = {
    id: 'dp_e2e_dispute',
    reference: 'pi_e2e_dispute',
    status: 'needs_response' as const,
    reason: 'fraudulent',
    amount: 999,
    currency: 'USD',
  };
  assert.equal(await recordDispute(server.app.ctx, context, shop.shopId, 'cardconnect', facts), 'disputed');

  const { page } = await browse(t, { expected });
  await signIn(page, server);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Disputes', exact: true }).click();
  await page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor();
  await page.getByText(placed.id).waitFor();
  await page
    .getByRole('link', { name: /Needs response/ })
    .first()
    .click();
  await page.getByRole('heading', { name: 'Dispute dp_e2e_dispute', level: 1 }).waitFor();
  await page.getByText('chargeback@example.com').waitFor();
  await page.getByText('Views of the invoice page (1)').waitFor();
  await page.getByText('No refunds once the key is revealed.').waitFor();
  assert.equal(await page.getByText('KEY-AAAA-1111').count(), 0, 'the evidence names the items, never the keys');
  await page.getByRole('button', { name: 'Submit evidence' }).waitFor();

  await page.getByRole('link', { name: placed.id }).click();
  await page.getByText('Payment disputed').waitFor();
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { formatPaymentCode, PAYMENT_CODE_ALPHABET, parsePaymentCode } from '../../src/modules/orders/payment-code.js';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 36, M4: the buyer of a manual method (tip jar, wallet e-mail, cashtag) quotes a short
 * payment reference, never the invoice id, which alone opens the invoice and its keys. The id
 * stays only in the invoice's link; the owner finds the order by the reference.
 */

const SHAPE = new RegExp(`^[${PAYMENT_CODE_ALPHABET}]{4}-[${PAYMENT_CODE_ALPHABET}]{4}$`);

async function setup(t: TestContext) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: ['K-1', 'K-2', 'K-3', 'K-4', 'K-5'] });
  assertOk(await api.put(`/self/${shop.shopId}/settings/payments/mobilecash`, { enabled: true, cashtag: '$Corner' }));
  const buy = async (gateway: string, email = 'buyer@example.com') =>
    assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: email,
        gateway,
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
      }),
    );
  return { app, api, ...shop, buy };
}

test('the code: 8 characters without look-alikes, shown XXXX-XXXX, parsed in any case with or without the dash', () => {
  for (const c of '01ILOU') assert.ok(!PAYMENT_CODE_ALPHABET.includes(c), `no ${c}`);
  assert.equal(formatPaymentCode('K7Q2M9XD'), 'K7Q2-M9XD');
  assert.equal(parsePaymentCode('k7q2-m9xd'), 'K7Q2M9XD');
  assert.equal(parsePaymentCode(' K7Q2 M9XD '), 'K7Q2M9XD');
  for (const bad of ['K7Q2-M9X', 'K7Q2-M9XDD', 'K7Q2-M9X0', 'buyer@example.com'])
    assert.equal(parsePaymentCode(bad), undefined);
});

test('manual instructions, the invoice page and the mails quote the reference; the id is only in the link', async (t) => {
  const { app, api, shopId, buy } = await setup(t);
  for (const gateway of ['tipjar', 'mobilecash']) {
    const invoice = await buy(gateway);
    const reference = invoice.payment.reference as string;
    assert.match(reference, SHAPE);
    assert.ok(invoice.payment.instructions.includes(reference), invoice.payment.instructions);
    assert.ok(!invoice.payment.instructions.includes(invoice.id), 'the instructions never quote the invoice id');
    const page = assertOk(await api.get(`/v2/public/invoices/${invoice.id}`));
    assert.equal(page.payment.reference, reference);

    const owned = assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`));
    assert.equal(owned.paymentCode, reference, 'the order view shows it');

    const mail = await app.db.kysely
      .selectFrom('mail_outbox')
      .selectAll()
      .where('subject', 'like', `%${reference}%`)
      .executeTakeFirstOrThrow();
    assert.equal(mail.subject, `Your order ${reference} from Selling Shop: how to pay`);
    assert.ok(mail.body_text.includes(reference));
    // The link is the one place the id appears.
    const withoutLink = mail.body_text.replaceAll(`/invoices/${invoice.id}`, '/invoices/…');
    assert.ok(!withoutLink.includes(invoice.id), `no invoice id outside the link:\n${mail.body_text}`);
    assert.ok(!mail.subject.includes(invoice.id));
  }
});

test('the owner finds an order by its reference, any case, with or without the dash; references differ per order', async (t) => {
  const { api, shopId, buy } = await setup(t);
  const orders = [
    await buy('tipjar', 'a@example.com'),
    await buy('tipjar', 'b@example.com'),
    await buy('mobilecash', 'c@example.com'),
  ];
  const references = orders.map((o) => o.payment.reference as string);
  assert.equal(new Set(references).size, 3);
  const target = orders[1]!;
  const reference = target.payment.reference as string;
  for (const typed of [reference, reference.toLowerCase(), reference.replace('-', '')]) {
    const found = assertOk(await api.get(`/self/${shopId}/invoices?searchString=${encodeURIComponent(typed)}`));
    assert.deepEqual(
      found.items.map((i: { id: string }) => i.id),
      [target.id],
      typed,
    );
    assert.equal(found.items[0].paymentCode, reference);
  }
  // The e-mail search still works beside it.
  const byEmail = assertOk(await api.get(`/self/${shopId}/invoices?searchString=c%40example.com`));
  assert.deepEqual(
    byEmail.items.map((i: { id: string }) => i.id),
    [orders[2]!.id],
  );
});

test('references are unique per shop in the database; orders from before them keep none', async (t) => {
  const { app, shopId, buy } = await setup(t);
  const first = await buy('tipjar');
  const second = await buy('tipjar', 'other@example.com');
  const db = app.db.kysely;
  const code = (
    await db.selectFrom('invoices').select('payment_code').where('id', '=', first.id).executeTakeFirstOrThrow()
  ).payment_code;
  assert.equal(code, (first.payment.reference as string).replace('-', ''), 'stored without the dash');
  await assert.rejects(
    db.updateTable('invoices').set({ payment_code: code }).where('id', '=', second.id).execute(),
    'the unique index (shop_id, payment_code) refuses a second order with the code',
  );
  // An order placed before migration 0030 has no code: it quotes its id, as before.
  await db.updateTable('invoices').set({ payment_code: null }).where('id', '=', second.id).execute();
  const old = assertOk(await (await owner(app)).get(`/v2/public/invoices/${second.id}`));
  assert.equal(old.payment.reference, second.id);
  assert.equal(shopId > 0, true);
});

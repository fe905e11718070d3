import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backdateCustomers } from '../../src/modules/customers/index.js';
import { backdateOrder, customerOrderDates, deriveRepeatPurchases } from '../../src/modules/orders/index.js';
import { backdateDeliveries } from '../../src/modules/products/index.js';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';

// The operations for imported or demo history (src/modules/orders/history.service.ts): orders
// placed "now" are moved to the times they happened, and what depends on the order of the
// completions is derived again.

const at = (iso: string) => Date.parse(`${iso}Z`);

test('backdated orders: repeat purchases derived again from the moved history, customers dated by their orders', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const db = app.db.kysely;
  const shop = await sellingShop(api);
  const { shopId } = shop;
  const order = async (email: string, pay: boolean) => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      payload: {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
      },
    });
    const id = assertOk({ status: res.statusCode, body: res.json() }).id as string;
    if (pay) assertOk(await api.post(`/self/${shopId}/invoices/${id}/process`));
    return id;
  };
  const first = await order('ann@example.com', true);
  const second = await order('ann@example.com', true);
  const unpaid = await order('ann@example.com', false);
  const bobs = await order('bob@example.com', true);
  const flags = async () =>
    Object.fromEntries(
      (await db.selectFrom('invoices').select(['id', 'repeat_purchase']).where('shop_id', '=', shopId).execute()).map(
        (r) => [r.id, r.repeat_purchase],
      ),
    );
  assert.deepEqual(await flags(), { [first]: 0, [second]: 1, [unpaid]: null, [bobs]: 0 }, 'decided at completion');

  // Ann's second order happened first.
  await backdateOrder(db, shopId, second, { createdAt: at('2025-01-02T10:00'), completedAt: at('2025-01-02T10:05') });
  await backdateOrder(db, shopId, first, { createdAt: at('2025-01-05T10:00'), completedAt: at('2025-01-05T10:30') });
  await backdateOrder(db, shopId, unpaid, {
    createdAt: at('2025-01-01T09:00'),
    completedAt: null,
    expiresAt: at('2025-01-01T10:00'),
  });
  await backdateOrder(db, shopId, bobs, { createdAt: at('2025-01-03T12:00'), completedAt: at('2025-01-03T12:01') });
  await backdateDeliveries(db, shopId, second, at('2025-01-02T10:05'));
  const delivered = await db
    .selectFrom('serials')
    .select('delivered_at')
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', second)
    .execute();
  assert.deepEqual(
    delivered.map((s) => Number(s.delivered_at)),
    [at('2025-01-02T10:05')],
  );

  await deriveRepeatPurchases(db, shopId, 'missing');
  assert.deepEqual(
    await flags(),
    { [first]: 0, [second]: 1, [unpaid]: null, [bobs]: 0 },
    "'missing' keeps decided flags",
  );
  await deriveRepeatPurchases(db, shopId, 'all');
  assert.deepEqual(await flags(), { [first]: 1, [second]: 0, [unpaid]: null, [bobs]: 0 }, "'all' follows the history");

  // Rows written past the completions (a bulk import) have no flag: 'missing' derives theirs alone.
  await db.updateTable('invoices').set({ repeat_purchase: null }).where('id', 'in', [first, bobs]).execute();
  await db.updateTable('invoices').set({ repeat_purchase: 1 }).where('id', '=', second).execute();
  await deriveRepeatPurchases(db, shopId, 'missing');
  assert.deepEqual(await flags(), { [first]: 1, [second]: 1, [unpaid]: null, [bobs]: 0 });

  const dates = await customerOrderDates(db, shopId);
  const customers = await db.selectFrom('customers').select(['id', 'email']).where('shop_id', '=', shopId).execute();
  const idOf = (email: string) => customers.find((c) => c.email === email)!.id;
  assert.deepEqual(
    [...dates].sort((a, b) => a.customerId - b.customerId),
    [
      {
        customerId: idOf('ann@example.com'),
        firstOrderAt: at('2025-01-01T09:00'),
        lastCompletedAt: at('2025-01-05T10:30'),
      },
      {
        customerId: idOf('bob@example.com'),
        firstOrderAt: at('2025-01-03T12:00'),
        lastCompletedAt: at('2025-01-03T12:01'),
      },
    ].sort((a, b) => a.customerId - b.customerId),
  );
  await backdateCustomers(db, shopId, dates);
  const ann = assertOk(await api.get(`/self/${shopId}/customers/${idOf('ann@example.com')}`));
  assert.equal(ann.createdAt, '2025-01-01T09:00:00.000Z');
  assert.equal(ann.lastOrderAt, '2025-01-05T10:30:00.000Z');
});

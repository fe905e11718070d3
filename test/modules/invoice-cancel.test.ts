import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 21: cancelling an unpaid invoice, by the owner (`POST /self/{shopId}/invoices/{id}/cancel`)
 * or by the buyer (`POST /v2/public/invoices/{id}/cancel`): the reserved stock and the coupon use
 * come back and `invoice.cancelled` is written, in one transaction; any other status is a 409.
 */
async function setup(t: TestContext) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serviceStock: 10 });
  const { shopId, productId, keysVariant, serviceVariant } = shop;
  assertOk(await api.post(`/self/${shopId}/coupons`, { name: 'HALF', discount: 50, isFixed: false, maxUses: 5 }));
  const buy = async (over: object = {}) =>
    assertOk(
      await api.post(`/v2/public/shops/${shopId}/invoices`, {
        customerEmail: 'buyer@example.com',
        gateway: 'tipjar',
        parts: [
          { productId, productVariantId: keysVariant, quantity: 2 },
          { productId, productVariantId: serviceVariant, quantity: 3 },
        ],
        ...over,
      }),
    );
  const stock = async () =>
    assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`)).variants.map((v: { stock: number }) => v.stock);
  const couponUses = async () => assertOk(await api.get(`/self/${shopId}/coupons`)).items[0].uses as number;
  const events = async (type: string) =>
    (
      await app.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('shop_id', '=', shopId)
        .where('type', '=', type)
        .execute()
    ).map((e) => JSON.parse(e.payload).invoiceId as string);
  const publicCancel = async (invoiceId: string) => {
    const res = await app.inject({ method: 'POST', url: `/v2/public/invoices/${invoiceId}/cancel` });
    return { status: res.statusCode, body: res.json() };
  };
  const base = `/self/${shopId}/invoices`;
  return { app, api, ...shop, buy, stock, couponUses, events, publicCancel, base };
}

test('the owner cancels a pending invoice: serials and counted stock come back, the coupon use too, and invoice.cancelled is written', async (t) => {
  const { api, base, buy, stock, couponUses, events, shopId, productId, keysVariant } = await setup(t);
  const invoice = await buy({ coupon: 'half' });
  assert.deepEqual(await stock(), [3, 7]);
  assert.equal(await couponUses(), 1);

  const cancelled = assertOk(await api.post(`${base}/${invoice.id}/cancel`));
  assert.equal(cancelled.status, 'cancelled');
  assert.equal(cancelled.customerEmail, 'buyer@example.com', 'the answer is the owner view');
  assert.deepEqual(cancelled, assertOk(await api.get(`${base}/${invoice.id}`)));
  assert.deepEqual(await stock(), [5, 10], 'two serials and three service units back on sale');
  assert.equal(await couponUses(), 0, 'the coupon use is returned');
  assert.deepEqual(await events('invoice.cancelled'), [invoice.id]);
  assert.deepEqual(cancelled.parts[0].deliverables, [], 'nothing was delivered');

  // The returned serials sell again: all five keys in one order, delivered once each.
  const again = await buy({
    customerEmail: 'next@example.com',
    parts: [{ productId, productVariantId: keysVariant, quantity: 5 }],
  });
  const done = assertOk(await api.post(`${base}/${again.id}/process`));
  assert.deepEqual([...done.parts[0].deliverables].sort(), ['K1', 'K2', 'K3', 'K4', 'K5']);
  assert.equal(assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`)).variants[0].stock, 0);
});

test('the buyer cancels through the public API with the invoice id alone, and is answered the public view', async (t) => {
  const { app, buy, stock, couponUses, events, publicCancel } = await setup(t);
  const invoice = await buy({ coupon: 'HALF' });
  const res = await publicCancel(invoice.id);
  const view = assertOk(res);
  assert.equal(view.status, 'cancelled');
  assert.equal(view.id, invoice.id);
  assert.equal(view.customerEmail, undefined, 'no buyer data in the public view');
  assert.equal(view.payment, null, 'nothing left to pay');
  assert.match(view.url, new RegExp(`/invoices/${invoice.id}$`));
  const read = (await app.inject({ method: 'GET', url: `/v2/public/invoices/${invoice.id}` })).json().data;
  assert.deepEqual(view, read);
  assert.deepEqual(await stock(), [5, 10]);
  assert.equal(await couponUses(), 0);
  assert.deepEqual(await events('invoice.cancelled'), [invoice.id]);

  assertError(await publicCancel('no-such-invoice-000000000'), 404, 'not_found');
  assertError(await publicCancel('bad id!'), 400, 'validation_error');
});

test('only a pending invoice can be cancelled: completed, expired and cancelled ones are a 409 that changes nothing', async (t) => {
  const { app, api, base, buy, stock, couponUses, events, publicCancel } = await setup(t);
  const completed = await buy();
  assertOk(await api.post(`${base}/${completed.id}/process`));
  const expired = await buy({ coupon: 'HALF' });
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1 })
    .where('id', '=', expired.id)
    .execute();
  const cancelled = await buy();
  assertOk(await api.post(`${base}/${cancelled.id}/cancel`));

  // The overdue invoice is expired as it is read, so the cancel meets `expired`.
  const expiredAnswer = await api.post(`${base}/${expired.id}/cancel`);
  assertError(expiredAnswer, 409, 'conflict');
  assert.deepEqual(expiredAnswer.body.errors, ['status: is expired']);
  const stockBefore = await stock();
  const usesBefore = await couponUses();
  for (const [invoice, status] of [
    [completed, 'completed'],
    [expired, 'expired'],
    [cancelled, 'cancelled'],
  ] as const) {
    const owned = await api.post(`${base}/${invoice.id}/cancel`);
    assertError(owned, 409, 'conflict');
    assert.deepEqual(owned.body.errors, [`status: is ${status}`]);
    assertError(await publicCancel(invoice.id), 409, 'conflict');
    assert.equal(assertOk(await api.get(`${base}/${invoice.id}`)).status, status);
  }
  assert.deepEqual(await stock(), stockBefore, 'no stock moved');
  assert.equal(await couponUses(), usesBefore);
  assert.deepEqual(await events('invoice.cancelled'), [cancelled.id], 'one cancellation, one event');
  assert.equal(
    assertOk(await api.get(`${base}/${completed.id}`)).parts[0].deliverables.length,
    2,
    'the completed order keeps its goods',
  );
});

test('a cancel and a payment of the same invoice at once: exactly one wins, the other is a 409', async (t) => {
  const { api, base, buy, stock, events, publicCancel, productId, keysVariant } = await setup(t);
  const oneKey = (n: string) =>
    buy({ customerEmail: `${n}@example.com`, parts: [{ productId, productVariantId: keysVariant, quantity: 1 }] });
  const invoices = [await oneKey('a'), await oneKey('b'), await oneKey('c'), await oneKey('d')];
  assert.deepEqual(await stock(), [1, 10]);
  let sold = 0;
  for (const [i, invoice] of invoices.entries()) {
    const [cancel, process] = await Promise.all([
      i % 2 === 0 ? api.post(`${base}/${invoice.id}/cancel`) : publicCancel(invoice.id),
      api.post(`${base}/${invoice.id}/process`),
    ]);
    assert.deepEqual(
      [cancel.status, process.status].sort(),
      [200, 409],
      `invoice ${i}: ${JSON.stringify([cancel.body, process.body])}`,
    );
    assert.equal((cancel.status === 409 ? cancel : process).body.code, 'conflict');
    const final = assertOk(await api.get(`${base}/${invoice.id}`));
    if (cancel.status === 200) {
      assert.equal(final.status, 'cancelled');
      assert.deepEqual(final.parts[0].deliverables, []);
    } else {
      assert.equal(final.status, 'completed');
      assert.equal(final.parts[0].deliverables.length, 1);
      sold++;
    }
  }
  assert.deepEqual(await stock(), [1 + (4 - sold), 10], 'a cancelled order gave its key back, a paid one did not');
  assert.equal((await events('invoice.cancelled')).length, 4 - sold);
  assert.equal((await events('invoice.completed')).length, sold);

  // Two cancels at once (owner and buyer): one is answered 200, the other 409; one event.
  const twice = await oneKey('twice');
  const answers = await Promise.all([api.post(`${base}/${twice.id}/cancel`), publicCancel(twice.id)]);
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
  assert.equal((await events('invoice.cancelled')).filter((id) => id === twice.id).length, 1);
  assert.deepEqual(await stock(), [1 + (4 - sold), 10]);
});

test("another account's key gets a 404 and changes nothing; a retry with the same Idempotency-Key is answered again", async (t) => {
  const { app, api, base, buy, stock, events, shopId } = await setup(t);
  const invoice = await buy();
  const mallory = await owner(app);
  const malloryShop = await sellingShop(mallory);
  assertError(await mallory.post(`${base}/${invoice.id}/cancel`), 404, 'not_found');
  assertError(await mallory.post(`/self/${malloryShop.shopId}/invoices/${invoice.id}/cancel`), 404, 'not_found');
  assert.equal(assertOk(await api.get(`${base}/${invoice.id}`)).status, 'pending');
  assert.deepEqual(await stock(), [3, 7]);
  assert.deepEqual(await events('invoice.cancelled'), []);

  const headers = { 'idempotency-key': 'cancel-once' };
  const first = await api.post(`${base}/${invoice.id}/cancel`, undefined, headers);
  const retry = await api.post(`${base}/${invoice.id}/cancel`, undefined, headers);
  assertOk(first);
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.deepEqual(retry.body, first.body);
  assert.deepEqual(await events('invoice.cancelled'), [invoice.id]);
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`)).status, 'cancelled');
});

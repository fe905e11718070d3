import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { langOf } from '../../src/i18n/lang.js';
import { reminderDueAt, sendDueReminders } from '../../src/modules/orders/index.js';
import { build, owner } from '../helpers/build.js';
import { atTime, TestClock } from '../helpers/clock.js';
import { assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 37, item 6: one reminder before an unpaid order expires, with the link back to pay, counted
 * in the shop's mail budgets. With the default hour's hold it is due 40 minutes in.
 */

const MINUTE = 60_000;
const SUBJECT = /is still waiting for payment$/;

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const clock = new TestClock();
  const app = await build(t, { TRUST_PROXY: 'true', ...env }, { clock });
  const api = await owner(app);
  const shop = await sellingShop(api, { serviceStock: null });
  const settings = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  const checkout = async (email: string, gateway = 'tipjar') => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      headers: { 'x-forwarded-for': '198.51.100.7' },
      payload: {
        customerEmail: email,
        gateway,
        parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 2 }],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.id as string;
  };
  const reminders = (to?: string) => {
    let query = app.db.kysely
      .selectFrom('mail_outbox')
      .select(['to_address', 'subject', 'body_text', 'body_html', 'status', 'last_error'])
      .where('shop_id', '=', shop.shopId);
    if (to) query = query.where('to_address', '=', to);
    return query
      .orderBy('id')
      .execute()
      .then((rows) => rows.filter((m) => SUBJECT.test(m.subject)));
  };
  const run = () => app.jobs.runOnce('payment-reminders');
  return { app, api, shop, settings, clock, checkout, reminders, run };
}

test('an unpaid order gets one reminder when a third of its hold is left, with the link back to pay', async (t) => {
  const { settings, clock, checkout, reminders, run } = await setup(t);
  const invoiceId = await checkout('late@example.com');
  clock.advance(39 * MINUTE);
  assert.equal(await run(), 0, 'not due yet');
  clock.advance(MINUTE);
  assert.equal(await run(), 1);
  const [mail, ...more] = await reminders('late@example.com');
  assert.equal(more.length, 0);
  assert.equal(mail!.status, 'pending');
  assert.match(mail!.subject, /^Your order \S+ from Selling Shop is still waiting for payment$/);
  assert.ok(!mail!.subject.includes(invoiceId), 'the id that opens the order is only in the link');
  const link = `${settings.storefrontUrl}/invoices/${invoiceId}`;
  assert.ok(mail!.body_text.includes(link), 'the link back to pay');
  assert.ok(mail!.body_html!.includes(`href="${link}"`));
  assert.ok(mail!.body_text.includes('Game Key (Support) × 2: $10.00'), mail!.body_text);
  assert.ok(mail!.body_text.includes('Total: $10.00'));
  const expires = clock.now() + 20 * MINUTE;
  assert.ok(mail!.body_text.includes(`held for you until ${langOf('en').dayTime(expires)}`), 'by when');

  // Once: later passes send nothing more, up to and past the expiry.
  clock.advance(10 * MINUTE);
  assert.equal(await run(), 0);
  clock.advance(20 * MINUTE);
  assert.equal(await run(), 0);
  assert.equal((await reminders('late@example.com')).length, 1);
});

test('paid, cancelled and expired orders, balance orders and short holds get no reminder', async (t) => {
  // A balance order completes (or fails) in its own request; the hold must be half an hour at least.
  assert.equal(reminderDueAt('balance', 0, 60 * MINUTE), null);
  assert.equal(reminderDueAt('tipjar', 0, 29 * MINUTE), null);
  assert.equal(reminderDueAt('tipjar', 0, 30 * MINUTE), 20 * MINUTE);
  assert.equal(reminderDueAt('stripe', 0, 24 * 60 * MINUTE), 16 * 60 * MINUTE);

  const { app, api, shop, clock, checkout, reminders, run } = await setup(t);
  const paid = await checkout('paid@example.com');
  assertOk(await api.post(`/self/${shop.shopId}/invoices/${paid}/process`));
  const cancelled = await checkout('cancelled@example.com');
  const cancel = await app.inject({ method: 'POST', url: `/v2/public/invoices/${cancelled}/cancel` });
  assert.ok(cancel.statusCode < 300, cancel.body);
  await checkout('expired@example.com');
  // A 20-minute hold: the buyer is most likely still on the page.
  assertOk(await api.put(`/self/${shop.shopId}/settings/invoices`, { lifetimeMinutes: 20 }));
  await checkout('short@example.com');

  // The job did not run until the orders of the hour had expired: an expired order gets nothing.
  clock.advance(61 * MINUTE);
  assert.equal(await run(), 0);
  assert.deepEqual(await reminders(), []);
});

test("the reminder counts in the shop's mail budget: past it, it is recorded as suppressed and never sent", async (t) => {
  const { api, shop, clock, checkout, reminders, run } = await setup(t);
  assertOk(
    await api.put(`/self/${shop.shopId}/settings/protection`, {
      mailPerRecipientHour: 1,
      pendingPerClient: 0,
      unitsPerClient: 0,
    }),
  );
  await checkout('budget@example.com');
  clock.advance(40 * MINUTE);
  assert.equal(await run(), 1, 'the reminder is taken (once) even when its mail is held back');
  const [mail] = await reminders('budget@example.com');
  assert.equal(mail!.status, 'dropped');
  assert.match(mail!.last_error!, /mailPerRecipientHour/);
  assert.equal(await run(), 0);
});

test('passes running at once send each reminder once', async (t) => {
  const { app, clock, checkout, reminders } = await setup(t);
  for (let i = 0; i < 6; i++) await checkout(`buyer${i}@example.com`);
  clock.advance(45 * MINUTE);
  const at = atTime(app.ctx, clock.now());
  const sent = await Promise.all([sendDueReminders(at), sendDueReminders(at), sendDueReminders(at)]);
  assert.equal(
    sent.reduce((a, b) => a + b, 0),
    6,
  );
  assert.equal((await reminders()).length, 6);
});

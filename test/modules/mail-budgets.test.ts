import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 36, M2: 15 checkouts and 15 tickets to one victim's address sent 30 mails in seconds. A
 * mail a buyer's action causes now counts in the shop's budgets (per recipient and per client an
 * hour, per shop a day); past one, the order or ticket is still made and its mail recorded as
 * suppressed, never sent. Clients are told apart by X-Forwarded-For (TRUST_PROXY).
 */

const VICTIM = 'victim@example.com';

async function setup(t: TestContext, budget: Record<string, number> = {}) {
  const clock = new TestClock();
  const app = await build(t, { TRUST_PROXY: 'true', RATE_LIMIT_PUBLIC_MAX: '0' }, { clock });
  const api = await owner(app);
  const shop = await sellingShop(api, { serviceStock: null });
  // The mail budgets at their defaults (or as the test says); the stock limits, which would refuse
  // the same address's fourth order first, off.
  assertOk(
    await api.put(`/self/${shop.shopId}/settings/protection`, {
      mailPerRecipientHour: 5,
      mailPerClientHour: 10,
      mailPerShopDay: 2000,
      pendingPerClient: 0,
      unitsPerClient: 0,
      ...budget,
    }),
  );
  const checkout = async (email: string, client: string) => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      headers: { 'x-forwarded-for': client },
      payload: {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.id as string;
  };
  const ticket = async (email: string, client: string) => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/tickets`,
      headers: { 'x-forwarded-for': client },
      payload: { email, title: 'Urgent: verify your account at https://evil.example', message: 'Hello' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.id as number;
  };
  const mails = (to?: string) => {
    let query = app.db.kysely
      .selectFrom('mail_outbox')
      .select(['to_address', 'subject', 'status', 'last_error'])
      .where('shop_id', '=', shop.shopId);
    if (to) query = query.where('to_address', '=', to);
    return query.orderBy('id').execute();
  };
  return { app, api, shop, clock, checkout, ticket, mails };
}

test('one address gets at most its hourly budget, whoever asks; the orders and tickets are all made', async (t) => {
  const { api, shop, clock, checkout, ticket, mails } = await setup(t);
  const invoices: string[] = [];
  const tickets: number[] = [];
  for (let i = 0; i < 15; i++) {
    invoices.push(await checkout(VICTIM, `198.51.100.${i + 1}`));
    tickets.push(await ticket(VICTIM, `203.0.113.${i + 1}`));
  }
  const toVictim = await mails(VICTIM);
  assert.equal(toVictim.length, 30, 'every mail is recorded');
  const sendable = toVictim.filter((m) => m.status === 'pending');
  const suppressed = toVictim.filter((m) => m.status === 'dropped');
  assert.equal(sendable.length, 5, 'the per-recipient budget');
  assert.equal(suppressed.length, 25);
  for (const mail of suppressed) assert.match(mail.last_error!, /^suppressed: .*mailPerRecipientHour/);
  for (const mail of toVictim) assert.ok(!mail.subject.includes('evil.example'), 'no buyer text in a subject');
  // Every order and ticket exists.
  for (const id of invoices)
    assert.equal(assertOk(await api.get(`/self/${shop.shopId}/invoices/${id}`)).status, 'pending');
  for (const id of tickets) assertOk(await api.get(`/self/${shop.shopId}/tickets/${id}`));
  // An hour later the address has a budget again.
  clock.advance(61 * 60_000);
  await checkout(VICTIM, '198.51.100.99');
  assert.equal((await mails(VICTIM)).at(-1)!.status, 'pending');
});

test('one client causes at most its hourly budget of mails, to any addresses', async (t) => {
  const { checkout, mails } = await setup(t);
  for (let i = 0; i < 12; i++) await checkout(`someone${i}@example.com`, '192.0.2.7');
  const all = await mails();
  assert.equal(all.filter((m) => m.status === 'pending').length, 10);
  const suppressed = all.filter((m) => m.status === 'dropped');
  assert.equal(suppressed.length, 2);
  for (const mail of suppressed) assert.match(mail.last_error!, /mailPerClientHour/);
  // The same /64 is the same client.
  await checkout('v6@example.com', '2001:db8:5:5::1');
  for (let i = 2; i <= 11; i++) await checkout(`v6-${i}@example.com`, `2001:db8:5:5::${i}`);
  const v6 = (await mails()).slice(12);
  assert.equal(v6.filter((m) => m.status === 'pending').length, 10);
  assert.equal(v6.filter((m) => m.status === 'dropped').length, 1);
});

test('a shop sends at most its daily budget', async (t) => {
  const { checkout, mails } = await setup(t, { mailPerShopDay: 3 });
  for (let i = 0; i < 4; i++) await checkout(`buyer${i}@example.com`, `198.51.100.${i + 1}`);
  const all = await mails();
  assert.deepEqual(
    all.map((m) => m.status),
    ['pending', 'pending', 'pending', 'dropped'],
  );
  assert.match(all[3]!.last_error!, /mailPerShopDay/);
});

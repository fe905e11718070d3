import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

/**
 * The owner's view of the shop's outbox (issue 36, item 3): a mail the budgets held back is
 * recorded, and the owner finds it, with the budget that held it, among everything the shop mailed.
 */

test("the owner lists the shop's mail; a suppressed mail says which budget held it; never a body", async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const other = await owner(app);
  const shop = await createShop(api, 'Mailing');
  assertOk(await api.put(`/self/${shop.id}/settings/protection`, { mailPerRecipientHour: 1 }));
  const ticket = (email: string, title: string) =>
    app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.id}/tickets`,
      payload: { email, title, message: 'Hello' },
    });
  for (const [email, title] of [
    ['victim@example.com', 'First'],
    ['victim@example.com', 'Second'],
    ['buyer@example.org', 'Third'],
  ] as const)
    assert.equal((await ticket(email, title)).statusCode, 200);

  const all = assertOk(await api.get(`/self/${shop.id}/mail`));
  assert.equal(all.totalCount, 3);
  assert.deepEqual(
    all.items.map((m: { to: string; status: string; suppressed: boolean }) => [m.to, m.status, m.suppressed]),
    [
      ['buyer@example.org', 'pending', false],
      ['victim@example.com', 'dropped', true],
      ['victim@example.com', 'pending', false],
    ],
  );
  for (const mail of all.items) {
    assert.equal(mail.body, undefined, 'no body');
    assert.ok(Date.parse(mail.createdAt) > 0);
  }

  const suppressed = assertOk(await api.get(`/self/${shop.id}/mail?status=suppressed`));
  assert.equal(suppressed.totalCount, 1);
  assert.match(
    suppressed.items[0].reason,
    /^suppressed: the shop's mail budget allows 1 mail to this address per hour/,
  );
  assert.equal(assertOk(await api.get(`/self/${shop.id}/mail?status=pending`)).totalCount, 2);
  assert.equal(assertOk(await api.get(`/self/${shop.id}/mail?searchString=EXAMPLE.ORG`)).totalCount, 1);
  assert.equal(
    assertOk(await api.get(`/self/${shop.id}/mail?pageSize=1&pageNumber=2`)).items[0].to,
    'victim@example.com',
  );

  assertError(await api.get(`/self/${shop.id}/mail?status=lost`), 400, 'validation_error');
  assertError(await other.get(`/self/${shop.id}/mail`), 404, 'not_found');
});

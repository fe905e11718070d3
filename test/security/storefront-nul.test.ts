import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { openForm, postForm } from '../helpers/web-forms.js';

/**
 * Issue 36, L1: a NUL character in a storefront form was a 500 on PostgreSQL (its text cannot
 * hold U+0000) and stored on SQLite. Now a 400 page naming the field on both engines, and nothing
 * is written.
 */
const NUL = '\u0000';

test('a NUL in the ticket form, a ticket reply or a review comment is a 400 page and changes nothing', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  const { subdomain } = assertOk(await api.get(`/self/${shopId}/settings`));
  const base = `/s/${subdomain}`;
  const tickets = async () => assertOk(await api.get(`/self/${shopId}/tickets`)).totalCount as number;

  const { form } = await openForm(app, `${base}/support`);
  const refused = await postForm(app, `${base}/support`, form, {
    email: 'b@example.com',
    title: 'Help',
    message: `Hello${NUL}there`,
  });
  assert.equal(refused.statusCode, 400, refused.body.slice(0, 500));
  assert.match(refused.body, /NUL character/);
  assert.match(refused.body, /&quot;message&quot;|"message"/);
  assert.equal(await tickets(), 0, 'no ticket was opened');
  const titled = await postForm(app, `${base}/support`, form, {
    email: 'b@example.com',
    title: `H${NUL}`,
    message: 'M',
  });
  assert.equal(titled.statusCode, 400);
  assert.equal(await tickets(), 0);

  const opened = await postForm(app, `${base}/support`, form, { email: 'b@example.com', title: 'Help', message: 'Hi' });
  assert.equal(opened.statusCode, 303, opened.body);
  const [, id, key] = /\/tickets\/(\d+)\?key=([A-Za-z0-9_-]+)$/.exec(String(opened.headers.location))!;
  const { form: reply } = await openForm(app, String(opened.headers.location), form);
  const badReply = await postForm(app, `${base}/tickets/${id}/reply`, reply, { key: key!, message: `More${NUL}` });
  assert.equal(badReply.statusCode, 400);
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets/${id}`)).messages.length, 1, 'no reply was added');
  const badKey = await postForm(app, `${base}/tickets/${id}/reply`, reply, { key: `${key}${NUL}`, message: 'More' });
  assert.equal(badKey.statusCode, 400);

  const order = assertOk(
    await app
      .inject({
        method: 'POST',
        url: `/v2/public/shops/${shopId}/invoices`,
        payload: {
          customerEmail: 'b@example.com',
          gateway: 'tipjar',
          parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
        },
      })
      .then((r) => ({ status: r.statusCode, body: r.json() })),
  );
  assertOk(await api.post(`/self/${shopId}/invoices/${order.id}/process`));
  const { form: review } = await openForm(app, `${base}/invoices/${order.id}`, form);
  const badReview = await postForm(app, `${base}/invoices/${order.id}/feedback`, review, {
    rating: '5',
    comment: `Great${NUL}`,
  });
  assert.equal(badReview.statusCode, 400);
  assert.equal(assertOk(await api.get(`/self/${shopId}/feedbacks`)).totalCount, 0, 'no review was left');
  const search = await app.inject({ method: 'GET', url: `${base}/?q=a%00b` });
  assert.ok(search.statusCode === 400 || search.statusCode === 200, `a search with a NUL: ${search.statusCode}`);
  const posted = await postForm(app, `${base}/invoices/${order.id}/feedback`, review, {
    rating: '5',
    comment: 'Great',
  });
  assert.equal(posted.statusCode, 303, 'the same review without the NUL is taken');
  assert.equal(assertOk(await api.get(`/self/${shopId}/feedbacks`)).totalCount, 1);
});

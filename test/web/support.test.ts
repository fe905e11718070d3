import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { build, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { formOf, getPage, openForm, postForm, tagById, textById } from '../helpers/web-forms.js';

/** Support through the storefront: the "open a ticket" form and the ticket page reached by its key. */

async function setup(t: TestContext, app?: FastifyInstance) {
  const theApp = app ?? (await build(t));
  const api = await owner(theApp);
  const shop = await sellingShop(api);
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  return { app: theApp, api, ...shop, base: `/s/${subdomain}` };
}

/** Opens a ticket through the form; answers its page's URL, id and key. */
async function openTicket(app: FastifyInstance, base: string, fields: Record<string, string>) {
  const { form } = await openForm(app, `${base}/support`);
  const res = await postForm(app, `${base}/support`, form, fields);
  assert.equal(res.statusCode, 303, res.body);
  const location = String(res.headers.location);
  const match = new RegExp(`^${base}/tickets/(\\d+)\\?key=([A-Za-z0-9_-]+)$`).exec(location);
  assert.ok(match, `redirected to the ticket page: ${location}`);
  return { url: location, id: Number(match[1]), key: match[2]!, form };
}

test('a buyer opens a ticket about an order, reads it by its key, replies; a closed ticket takes no reply', async (t) => {
  const { app, api, shopId, productId, keysVariant, base } = await setup(t);
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

  const { page } = await openForm(app, `${base}/support?invoice=${order.id}`);
  assert.equal(page.statusCode, 200);
  assert.equal(page.headers['cache-control'], 'private, no-store');
  assert.match(tagById(page.body, 'invoice')!, new RegExp(`value="${order.id}"`), 'the order id is filled in');
  for (const id of ['email', 'title', 'message', 'invoice']) assert.ok(page.body.includes(`<label for="${id}"`));

  const ticket = await openTicket(app, base, {
    email: 'B@Example.com',
    title: 'Where is <my> key?',
    message: 'I paid. <script>alert(1)</script>',
    invoice: order.id,
  });
  const opened = await getPage(app, ticket.url);
  assert.equal(opened.statusCode, 200);
  assert.equal(opened.headers['cache-control'], 'private, no-store');
  assert.equal(opened.headers['referrer-policy'], 'no-referrer');
  assert.ok(opened.body.includes('<h1>Where is &lt;my> key?</h1>'));
  assert.ok(opened.body.includes('I paid. &lt;script>alert(1)&lt;/script>'), 'the message is text');
  assert.ok(!opened.body.includes('<script>alert(1)'));
  assert.ok(!opened.body.includes('b@example.com'), 'the e-mail is not on the page');
  assert.ok(opened.body.includes(`href="${base}/invoices/${order.id}"`), 'the order is linked');
  assert.equal(textById(opened.body, 'ticket-status'), 'Waiting for the shop');
  const owned = assertOk(await api.get(`/self/${shopId}/tickets/${ticket.id}`));
  assert.equal(owned.email, 'b@example.com');
  assert.equal(owned.invoiceId, order.id);

  assert.equal((await getPage(app, `${base}/tickets/${ticket.id}?key=wrong-key`)).statusCode, 404);
  assert.equal((await getPage(app, `${base}/tickets/${ticket.id}`)).statusCode, 404);
  assert.equal((await getPage(app, `${base}/tickets/999999?key=${ticket.key}`)).statusCode, 404);

  assertOk(await api.post(`/self/${shopId}/tickets/${ticket.id}/message`, { content: 'Sent again.' }));
  const reply = formOf(await getPage(app, ticket.url, ticket.form), ticket.form);
  const blank = await postForm(app, `${base}/tickets/${ticket.id}/reply`, reply, { key: ticket.key, message: '   ' });
  assert.equal(blank.statusCode, 400);
  assert.match(tagById(blank.body, 'message')!, /aria-invalid="true"/);
  assert.equal(textById(blank.body, 'message-error'), 'Is required.');
  const wrongKey = await postForm(app, `${base}/tickets/${ticket.id}/reply`, reply, { key: 'nope', message: 'Hi' });
  assert.equal(wrongKey.statusCode, 404);
  const sent = await postForm(app, `${base}/tickets/${ticket.id}/reply`, reply, {
    key: ticket.key,
    message: 'Got it, thanks!',
  });
  assert.equal(sent.statusCode, 303);
  assert.equal(sent.headers.location, ticket.url);
  const thread = await getPage(app, ticket.url);
  const order_ = ['I paid.', 'Sent again.', 'Got it, thanks!'].map((text) => thread.body.indexOf(text));
  assert.ok(
    order_.every((at, i) => at > 0 && (i === 0 || at > order_[i - 1]!)),
    'the thread is oldest first',
  );
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets/${ticket.id}`)).messages.length, 3);

  assertOk(await api.post(`/self/${shopId}/tickets/${ticket.id}/close`));
  const closed = await getPage(app, ticket.url);
  assert.equal(closed.statusCode, 200);
  assert.match(closed.body, /This ticket is closed/);
  assert.ok(!closed.body.includes('name="message"'), 'no reply form on a closed ticket');
  const late = await postForm(app, `${base}/tickets/${ticket.id}/reply`, reply, { key: ticket.key, message: 'Hello?' });
  assert.equal(late.statusCode, 409);
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets/${ticket.id}`)).messages.length, 3);
});

test('the support form shows its errors next to the fields and opens nothing', async (t) => {
  const { app, api, shopId, base } = await setup(t);
  const other = await setup(t, app);
  const theirOrder = assertOk(
    await app
      .inject({
        method: 'POST',
        url: `/v2/public/shops/${other.shopId}/invoices`,
        payload: {
          customerEmail: 'b@example.com',
          gateway: 'tipjar',
          parts: [{ productId: other.productId, productVariantId: other.keysVariant, quantity: 1 }],
        },
      })
      .then((r) => ({ status: r.statusCode, body: r.json() })),
  );
  const { form } = await openForm(app, `${base}/support`);
  const bad = await postForm(app, `${base}/support`, form, {
    email: 'nope',
    title: ' ',
    message: 'Hello <b>',
    invoice: '',
  });
  assert.equal(bad.statusCode, 400);
  assert.equal(textById(bad.body, 'email-error'), 'Must be an e-mail address.');
  assert.equal(textById(bad.body, 'title-error'), 'Is required.');
  assert.equal(textById(bad.body, 'message-error'), undefined);
  assert.equal(textById(bad.body, 'message'), 'Hello <b>', 'the message is kept');
  const notOurs = await postForm(app, `${base}/support`, form, {
    email: 'b@example.com',
    title: 'Order',
    message: 'About it',
    invoice: theirOrder.id,
  });
  assert.equal(notOurs.statusCode, 400);
  assert.equal(textById(notOurs.body, 'invoice-error'), 'Is not an invoice of this shop.');
  const noCsrf = await postForm(
    app,
    `${base}/support`,
    form,
    { email: 'b@example.com', title: 'T', message: 'M' },
    { csrf: false },
  );
  assert.equal(noCsrf.statusCode, 403);
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets`)).totalCount, 0);

  assertOk(await api.put(`/self/${shopId}/settings/design`, { disableSupport: true }));
  const off = await getPage(app, `${base}/support`);
  assert.equal(off.statusCode, 404);
  const posted = await postForm(app, `${base}/support`, form, { email: 'b@example.com', title: 'T', message: 'M' });
  assert.equal(posted.statusCode, 404);
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets`)).totalCount, 0);
});

test("a ticket of another shop is a 404 page through this shop's address", async (t) => {
  const mine = await setup(t);
  const theirs = await setup(t, mine.app);
  const ticket = await openTicket(mine.app, theirs.base, { email: 'b@example.com', title: 'Hi', message: 'There' });
  const page = await getPage(mine.app, `${mine.base}/tickets/${ticket.id}?key=${ticket.key}`);
  assert.equal(page.statusCode, 404);
  const fields = { key: ticket.key, message: 'Sneaky' };
  // The other shop's form token is refused here: a token is bound to its shop.
  assert.equal(
    (await postForm(mine.app, `${mine.base}/tickets/${ticket.id}/reply`, ticket.form, fields)).statusCode,
    403,
  );
  const { form: here } = await openForm(mine.app, `${mine.base}/support`, ticket.form);
  const reply = await postForm(mine.app, `${mine.base}/tickets/${ticket.id}/reply`, here, fields);
  assert.equal(reply.statusCode, 404);
  assert.equal(assertOk(await theirs.api.get(`/self/${theirs.shopId}/tickets/${ticket.id}`)).messages.length, 1);
});

test('the ticket key in a storefront URL is redacted from the request log', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const app = await buildApp({ config: await freshConfig(t), logger: { level: 'info', stream } });
  onEnd(t, () => app.close());
  const { base } = await setup(t, app);
  const ticket = await openTicket(app, base, { email: 'b@example.com', title: 'Hi', message: 'There' });
  assert.equal((await getPage(app, ticket.url)).statusCode, 200);

  const log = lines.join('\n');
  assert.ok(
    !log.includes(ticket.key),
    `the key appears in the log:\n${lines.filter((l) => l.includes(ticket.key)).join('\n')}`,
  );
  const urls = lines.map((l) => JSON.parse(l) as { req?: { url: string } }).flatMap((l) => (l.req ? [l.req.url] : []));
  assert.ok(urls.includes(`${base}/tickets/${ticket.id}?key=[REDACTED]`), urls.join('\n'));
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, type Client, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { getPage, openForm, postForm, tagById, textById, type WebForm } from '../helpers/web-forms.js';

/** The buyer's order flow through the storefront's forms: checkout, invoice page, cancel, goods, review. */

async function setup(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  // Keys no random token on a page (a CSRF token, an invoice id) can contain by chance, as "K1" can.
  const shop = await sellingShop(api, {
    serials: ['SERIAL-ONE-1111', 'SERIAL-TWO-2222', 'SERIAL-THREE-3333', 'SERIAL-FOUR-4444', 'SERIAL-FIVE-5555'],
  });
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  const base = `/s/${subdomain}`;
  const stock = async () => {
    const p = assertOk(await api.get(`/self/${shop.shopId}/v2/products/${shop.productId}`));
    return { keys: p.variants[0].stock, service: p.variants[1].stock };
  };
  const invoiceCount = async () => assertOk(await api.get(`/self/${shop.shopId}/invoices`)).totalCount as number;
  return { app, api, ...shop, base, stock, invoiceCount };
}

/** Opens the checkout page of a variant and posts it with these answers; answers the page and the reply. */
async function placeOrder(
  app: FastifyInstance,
  base: string,
  query: Record<string, string>,
  answers: Record<string, string | string[]>,
) {
  const { page, form } = await openForm(app, `${base}/checkout?${new URLSearchParams(query)}`);
  assert.equal(page.statusCode, 200, page.body);
  const res = await postForm(app, `${base}/checkout`, form, {
    product: query.product!,
    variant: query.variant!,
    quantity: query.quantity ?? '1',
    ...answers,
  });
  return { page, form, res };
}

function invoiceIdOf(location: unknown, base: string): string {
  const match = new RegExp(`^${base}/invoices/([A-Za-z0-9_-]+)$`).exec(String(location));
  assert.ok(match, `redirected to an invoice page: ${String(location)}`);
  return match[1]!;
}

test('a full order through the forms: checkout, pending page with instructions, delivery, goods.txt, one review', async (t) => {
  const { app, api, shopId, productId, keysVariant, base, stock } = await setup(t);
  const query = { product: String(productId), variant: String(keysVariant), quantity: '2' };

  const { page, form, res } = await placeOrder(app, base, query, { email: 'Buyer@Example.com', gateway: 'tipjar' });
  assert.equal(page.headers['cache-control'], 'private, no-store');
  assert.match(page.body, /<h1>Checkout<\/h1>/);
  assert.ok(page.body.includes('Game Key') && page.body.includes('$9.99'), 'the summary names product and price');
  assert.ok(tagById(page.body, 'gateway-tipjar'), 'an enabled gateway is offered');
  assert.equal(
    tagById(page.body, 'gateway-balance'),
    undefined,
    'the balance is never offered to a buyer not signed in',
  );
  assert.match(tagById(page.body, 'quantity')!, /value="2"/);

  assert.equal(res.statusCode, 303, res.body);
  const invoiceId = invoiceIdOf(res.headers.location, base);
  assert.deepEqual(await stock(), { keys: 3, service: 10 }, 'the order holds its stock');

  const pending = await getPage(app, `${base}/invoices/${invoiceId}`, form);
  assert.equal(pending.statusCode, 200);
  assert.equal(pending.headers['cache-control'], 'private, no-store');
  assert.match(pending.body, /Waiting for payment/);
  assert.ok(pending.body.includes('to the tip jar &quot;jar&quot;') || pending.body.includes('to the tip jar "jar"'));
  const { payment_code: code } = await app.db.kysely
    .selectFrom('invoices')
    .select('payment_code')
    .where('id', '=', invoiceId)
    .executeTakeFirstOrThrow();
  assert.equal(
    textById(pending.body, 'pay-reference'),
    `${code!.slice(0, 4)}-${code!.slice(4)}`,
    'the payment reference to quote is the short code, never the invoice id',
  );
  assert.match(pending.body, /<noscript><meta http-equiv="refresh" content="10"\/?><\/noscript>/);
  assert.match(
    tagById(pending.body, 'invoice-status')!,
    new RegExp(`data-status-url="${base}/invoices/${invoiceId}/status"`),
  );
  assert.match(pending.body, /data-countdown="\d+"/);
  // Asked twice: the disclosure holds the button that cancels.
  assert.match(
    pending.body,
    /<details class="cancel-order"><summary>Cancel this order<\/summary><form[^>]*\/cancel".*?Yes, cancel this order/,
  );
  assert.ok(!pending.body.includes('127.0.0.1'), 'the IP is never on the page');
  assert.ok(!pending.body.includes('SERIAL-ONE-1111'), 'nothing is delivered before payment');
  const notYet = await getPage(app, `${base}/invoices/${invoiceId}/goods.txt`);
  assert.equal(notYet.statusCode, 404, 'no goods before completion');

  const status = await getPage(app, `${base}/invoices/${invoiceId}/status`);
  assert.equal(status.statusCode, 200);
  assert.deepEqual(JSON.parse(status.body), { status: 'pending' });

  assertOk(await api.post(`/self/${shopId}/invoices/${invoiceId}/process`));
  assert.deepEqual(JSON.parse((await getPage(app, `${base}/invoices/${invoiceId}/status`)).body), {
    status: 'completed',
  });

  const done = await getPage(app, `${base}/invoices/${invoiceId}`, form);
  assert.equal(done.statusCode, 200);
  assert.match(done.body, /Completed/);
  assert.ok(!done.body.includes('http-equiv="refresh"'), 'a finished invoice stops refreshing');
  assert.ok(!done.body.includes('data-status-url'), 'and stops polling');
  const parts = assertOk(await api.get(`/self/${shopId}/invoices/${invoiceId}`)).parts;
  assert.equal(textById(done.body, `goods-${parts[0].id}`), 'SERIAL-ONE-1111\nSERIAL-TWO-2222', 'one item a line');
  assert.match(done.body, new RegExp(`data-copy="goods-${parts[0].id}"`));
  assert.match(done.body, new RegExp(`href="${base}/invoices/${invoiceId}/goods.txt"`));
  assert.ok(done.body.includes(`href="${base}/support?invoice=${invoiceId}"`), 'a ticket can be opened about it');

  const txt = await getPage(app, `${base}/invoices/${invoiceId}/goods.txt`);
  assert.equal(txt.statusCode, 200);
  assert.match(String(txt.headers['content-type']), /^text\/plain/);
  assert.match(String(txt.headers['content-disposition']), /^attachment; filename="order-.+\.txt"$/);
  assert.equal(txt.headers['cache-control'], 'private, no-store');
  assert.match(txt.body, /\nSERIAL-ONE-1111\nSERIAL-TWO-2222\n/);

  const review = formFrom(done, form);
  const posted = await postForm(app, `${base}/invoices/${invoiceId}/feedback`, review, {
    rating: '5',
    comment: 'Fast <b>delivery</b>',
  });
  assert.equal(posted.statusCode, 303);
  assert.equal(posted.headers.location, `${base}/invoices/${invoiceId}`);
  const reviewed = await getPage(app, `${base}/invoices/${invoiceId}`, form);
  assert.match(reviewed.body, /Your review/);
  assert.ok(reviewed.body.includes('Fast &lt;b>delivery&lt;/b>'), 'the comment is shown, escaped');
  assert.ok(!reviewed.body.includes('name="rating"'), 'the form is gone once a review is left');
  const again = await postForm(app, `${base}/invoices/${invoiceId}/feedback`, review, { rating: '1' });
  assert.equal(again.statusCode, 303, 'a second review changes nothing');
  const feedbacks = assertOk(await api.get(`/self/${shopId}/feedbacks`));
  assert.equal(feedbacks.totalCount, 1);
  assert.equal(feedbacks.items[0].rating, 5);
});

/** The token of the page's own form, with the cookie already held. */
function formFrom(page: { body: string }, held: WebForm): WebForm {
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(token);
  return { token, cookie: held.cookie };
}

async function customFieldsProduct(api: Client, shopId: number) {
  return assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Account',
      description: 'An account',
      variants: [
        {
          title: 'Monthly',
          priceDetails: { amount: 4 },
          productType: 'service',
          asService: { text: 'Welcome', stock: 10, minAmount: 1, maxAmount: 2 },
          customFields: [
            { id: 'username', name: 'Username', type: 'text', required: true, placeholder: 'your name' },
            { id: 'age', name: 'Age', type: 'number' },
            { id: 'adult', name: 'I am an adult', type: 'checkbox', required: true },
          ],
        },
      ],
    }),
  );
}

test('refusals come back as the form with each error next to its field, values kept, nothing created', async (t) => {
  const { app, api, shopId, base, invoiceCount } = await setup(t);
  const product = await customFieldsProduct(api, shopId);
  const variant = product.variants[0];
  assertOk(await api.put(`/self/${shopId}/settings/terms`, { terms: 'Be nice.' }));
  const query = { product: String(product.id), variant: String(variant.id), quantity: '1' };
  const good = {
    email: 'buyer@example.com',
    gateway: 'tipjar',
    'field.username': 'bob',
    'field.adult': 'true',
    terms: 'accepted',
  };

  const { page, form } = await openForm(app, `${base}/checkout?${new URLSearchParams(query)}`);
  for (const id of ['field-username', 'field-age', 'field-adult', 'terms', 'email', 'coupon', 'ref']) {
    assert.ok(page.body.includes(`<label for="${id}"`), `${id} has a label`);
  }
  assert.ok(page.body.includes(`href="${base}/terms"`), 'the terms are linked');
  const submit = (answers: Record<string, string>, quantity = '1') =>
    postForm(app, `${base}/checkout`, form, { product: query.product, variant: query.variant, quantity, ...answers });
  const errorOf = (html: string, id: string) => {
    const input = tagById(html, id);
    assert.ok(input, `${id} is on the page`);
    assert.match(input, /aria-invalid="true"/, `${id} is marked invalid`);
    assert.match(input, new RegExp(`aria-describedby="[^"]*${id}-error`), `${id} points at its error`);
    return textById(html, `${id}-error`);
  };

  const badEmail = await submit({ ...good, email: 'not-an-address', 'field.age': '41' });
  assert.equal(badEmail.statusCode, 400);
  assert.equal(errorOf(badEmail.body, 'email'), 'Must be an e-mail address.');
  assert.match(tagById(badEmail.body, 'email')!, /value="not-an-address"/);
  assert.match(tagById(badEmail.body, 'field-username')!, /value="bob"/, 'other answers are kept');
  assert.match(tagById(badEmail.body, 'field-age')!, /value="41"/);
  assert.match(tagById(badEmail.body, 'field-adult')!, /checked/);
  assert.match(tagById(badEmail.body, 'terms')!, /checked/);

  const tooMany = await submit(good, '3');
  assert.equal(tooMany.statusCode, 422);
  assert.equal(errorOf(tooMany.body, 'quantity'), 'Must be between 1 and 2.');
  assert.match(tagById(tooMany.body, 'quantity')!, /value="3"/);

  const missing = await submit({ ...good, 'field.username': '', 'field.adult': '' });
  assert.equal(missing.statusCode, 400);
  assert.equal(errorOf(missing.body, 'field-username'), 'Is required.');
  assert.equal(errorOf(missing.body, 'field-adult'), 'Is required.');

  const noTerms = await submit({ ...good, terms: '' });
  assert.equal(noTerms.statusCode, 400);
  assert.match(errorOf(noTerms.body, 'terms')!, /^Accept the terms of service/);

  const badCoupon = await submit({ ...good, coupon: 'NOPE' });
  assert.equal(badCoupon.statusCode, 422);
  assert.equal(errorOf(badCoupon.body, 'coupon'), 'Is not valid.');

  const script = await submit({ ...good, email: 'x', 'field.username': '<script>alert(1)</script>' });
  assert.equal(script.statusCode, 400);
  assert.ok(!script.body.includes('<script>alert(1)'), 'an answer is never markup');
  assert.ok(script.body.includes('value="&lt;script>alert(1)&lt;/script>"'), 'the answer is kept, escaped');

  assert.equal(await invoiceCount(), 0, 'no refused form created an invoice');
  const placed = await submit(good);
  assert.equal(placed.statusCode, 303, placed.body);
  assert.equal(await invoiceCount(), 1);
  const invoice = assertOk(await api.get(`/self/${shopId}/invoices/${invoiceIdOf(placed.headers.location, base)}`));
  assert.deepEqual(invoice.customFields, { username: 'bob', adult: true });
});

test('a form posted without its CSRF token is a 403 page and creates nothing', async (t) => {
  const { app, productId, keysVariant, base, invoiceCount, stock } = await setup(t);
  const query = { product: String(productId), variant: String(keysVariant), quantity: '1' };
  const { form } = await openForm(app, `${base}/checkout?${new URLSearchParams(query)}`);
  const fields = { ...query, email: 'buyer@example.com', gateway: 'tipjar' };
  const none = await postForm(app, `${base}/checkout`, form, fields, { csrf: false });
  assert.equal(none.statusCode, 403);
  assert.match(String(none.headers['content-type']), /^text\/html/);
  assert.match(none.body, /This form has expired/);
  const forged = await postForm(app, `${base}/checkout`, { ...form, token: 'forged' }, fields);
  assert.equal(forged.statusCode, 403);
  assert.equal(await invoiceCount(), 0);
  assert.deepEqual(await stock(), { keys: 5, service: 10 });
});

test('the product page carries custom fields, coupon and referral code to the checkout page', async (t) => {
  const { app, api, shopId, base } = await setup(t);
  const product = await customFieldsProduct(api, shopId);
  const page = await getPage(app, `${base}/products/${product.path}?ref=FRIEND1`);
  assert.equal(page.statusCode, 200);
  assert.match(tagById(page.body, 'field-username')!, /name="field\.username"/);
  assert.match(tagById(page.body, 'field-username')!, /placeholder="your name"/);
  assert.match(tagById(page.body, 'coupon')!, /name="coupon"/);
  assert.match(tagById(page.body, 'ref')!, /value="FRIEND1"/);
  const query = new URLSearchParams({
    product: String(product.id),
    variant: String(product.variants[0].id),
    quantity: '2',
    'field.username': 'alice',
    'field.adult': 'true',
    coupon: 'SAVE',
    ref: 'FRIEND1',
  });
  assert.match(page.body, new RegExp(`<form method="post" action="${base}/checkout/start"`));
  // The product page's form posts its answers (no CSRF token: it only renders the checkout page).
  const checkout = await app.inject({
    method: 'POST',
    url: `${base}/checkout/start`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: query.toString(),
  });
  assert.equal(checkout.statusCode, 200);
  assert.match(checkout.body, /name="_csrf"/);
  const linked = await getPage(app, `${base}/checkout?${query}`);
  assert.match(tagById(linked.body, 'field-username')!, /value="alice"/);
  assert.match(tagById(checkout.body, 'field-username')!, /value="alice"/);
  assert.match(tagById(checkout.body, 'field-adult')!, /checked/);
  assert.match(tagById(checkout.body, 'coupon')!, /value="SAVE"/);
  assert.match(tagById(checkout.body, 'ref')!, /value="FRIEND1"/);
  assert.match(tagById(checkout.body, 'quantity')!, /value="2"/);
  assert.equal((await getPage(app, `${base}/checkout?product=999999`)).statusCode, 404);
  assert.equal((await getPage(app, `${base}/checkout?product=${product.id}&variant=999999`)).statusCode, 404);
});

test('an on-hold shop and a variant without a payment method show no working buy button', async (t) => {
  const { app, api, shopId, productId, keysVariant, base } = await setup(t);
  const url = `${base}/checkout?product=${productId}&variant=${keysVariant}`;
  assertOk(await api.put(`/self/${shopId}/settings/status`, { onHold: true }));
  const held = await getPage(app, url);
  assert.equal(held.statusCode, 200);
  assert.match(held.body, /not taking orders/);
  assert.ok(!held.body.includes('Place order'));
  assertOk(await api.put(`/self/${shopId}/settings/status`, { onHold: false }));

  // Only the balance left: a buyer who is not signed in has no way to pay.
  assertOk(await api.put(`/self/${shopId}/settings/payments/tipjar`, { enabled: false }));
  const unpayable = await getPage(app, url);
  assert.match(unpayable.body, /no payment method/);
  assert.ok(!unpayable.body.includes('Place order'));
});

test('cancelling a pending order releases its stock and the page says it is cancelled', async (t) => {
  const { app, productId, keysVariant, base, stock } = await setup(t);
  const query = { product: String(productId), variant: String(keysVariant), quantity: '2' };
  const { form, res } = await placeOrder(app, base, query, { email: 'buyer@example.com', gateway: 'tipjar' });
  const invoiceId = invoiceIdOf(res.headers.location, base);
  assert.deepEqual(await stock(), { keys: 3, service: 10 });

  const page = await getPage(app, `${base}/invoices/${invoiceId}`, form);
  const cancel = formFrom(page, form);
  const noToken = await postForm(app, `${base}/invoices/${invoiceId}/cancel`, cancel, {}, { csrf: false });
  assert.equal(noToken.statusCode, 403);
  assert.deepEqual(await stock(), { keys: 3, service: 10 }, 'a forged cancel changes nothing');

  const cancelled = await postForm(app, `${base}/invoices/${invoiceId}/cancel`, cancel, {});
  assert.equal(cancelled.statusCode, 303);
  assert.equal(cancelled.headers.location, `${base}/invoices/${invoiceId}`);
  assert.deepEqual(await stock(), { keys: 5, service: 10 }, 'the stock is back');
  const after = await getPage(app, `${base}/invoices/${invoiceId}`, form);
  assert.match(after.body, /This order was cancelled/);
  assert.ok(!after.body.includes('Cancel this order'));
  assert.ok(!after.body.includes('http-equiv="refresh"'));
  assert.deepEqual(JSON.parse((await getPage(app, `${base}/invoices/${invoiceId}/status`)).body), {
    status: 'cancelled',
  });
  const twice = await postForm(app, `${base}/invoices/${invoiceId}/cancel`, cancel, {});
  assert.equal(twice.statusCode, 303, 'a second click lands on the page that says cancelled');
});

test('the status poll answers { status } in exactly one database read, which finds the shop its address names', async (t) => {
  const { app, productId, keysVariant, base } = await setup(t);
  const query = { product: String(productId), variant: String(keysVariant), quantity: '1' };
  const { res } = await placeOrder(app, base, query, { email: 'buyer@example.com', gateway: 'tipjar' });
  const invoiceId = invoiceIdOf(res.headers.location, base);

  const statements: string[] = [];
  const stop = app.db.observeQueries((event) => statements.push(event.sql));
  const poll = await getPage(app, `${base}/invoices/${invoiceId}/status`);
  stop();
  assert.equal(poll.statusCode, 200);
  assert.match(String(poll.headers['content-type']), /^application\/json/);
  assert.equal(poll.headers['cache-control'], 'private, no-store');
  assert.deepEqual(JSON.parse(poll.body), { status: 'pending' });
  assert.equal(statements.length, 1, statements.join('\n'));
  assert.match(
    statements[0]!,
    /^select .*from "invoices" where "id" = .* = \(select "id" from "shops" where "subdomain" = /i,
  );

  const unknown = await getPage(app, `${base}/invoices/nosuchinvoice0000000000/status`);
  assert.equal(unknown.statusCode, 404);
  assert.deepEqual(JSON.parse(unknown.body), { status: null });
});

test("another shop's invoice is a 404 page through this shop's address, and stays as it was", async (t) => {
  const { app, base } = await setup(t);
  const other = await owner(app);
  const theirs = await sellingShop(other);
  const { subdomain } = assertOk(await other.get(`/self/${theirs.shopId}/settings`));
  const query = { product: String(theirs.productId), variant: String(theirs.keysVariant), quantity: '1' };
  const { form, res } = await placeOrder(app, `/s/${subdomain}`, query, { email: 'b@example.com', gateway: 'tipjar' });
  const invoiceId = invoiceIdOf(res.headers.location, `/s/${subdomain}`);

  const page = await getPage(app, `${base}/invoices/${invoiceId}`, form);
  assert.equal(page.statusCode, 404);
  assert.match(page.body, /Page not found/);
  assert.equal((await getPage(app, `${base}/invoices/${invoiceId}/goods.txt`)).statusCode, 404);
  const poll = await getPage(app, `${base}/invoices/${invoiceId}/status`);
  assert.equal(poll.statusCode, 404, "another shop's address does not answer the poll either");
  assert.deepEqual(JSON.parse(poll.body), { status: null });
  assert.equal((await getPage(app, `/s/no-such-shop/invoices/${invoiceId}/status`)).statusCode, 404);
  // A form token is bound to its shop: the other shop's token is refused here before anything is looked up.
  assert.equal((await postForm(app, `${base}/invoices/${invoiceId}/cancel`, form, {})).statusCode, 403);
  const { form: here } = await openForm(app, `${base}/support`, form);
  const cancel = await postForm(app, `${base}/invoices/${invoiceId}/cancel`, here, {});
  assert.equal(cancel.statusCode, 404);
  assert.equal(assertOk(await other.get(`/self/${theirs.shopId}/invoices/${invoiceId}`)).status, 'pending');
  assert.equal((await getPage(app, `${base}/invoices/not*an*id`)).statusCode, 404);
});

test('a password-protected shop sells through the forms once unlocked; its status poll needs no unlock', async (t) => {
  const { app, api, shopId, productId, keysVariant, base } = await setup(t);
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'open sesame' }));
  const checkoutUrl = `${base}/checkout?product=${productId}&variant=${keysVariant}`;
  const { page: prompt, form: promptForm } = await openForm(app, checkoutUrl);
  assert.equal(prompt.statusCode, 401, 'the checkout page is behind the password');
  const unlocked = await postForm(app, `${base}/unlock`, promptForm, { password: 'open sesame', next: checkoutUrl });
  assert.equal(unlocked.statusCode, 303);
  const unlock = unlocked.cookies.find((c) => c.name === `shopd_unlock_${shopId}`)!;
  const held: WebForm = { token: promptForm.token, cookie: `${promptForm.cookie}; ${unlock.name}=${unlock.value}` };

  const { page, form } = await openForm(app, checkoutUrl, held);
  assert.equal(page.statusCode, 200);
  const placed = await postForm(app, `${base}/checkout`, form, {
    product: String(productId),
    variant: String(keysVariant),
    quantity: '1',
    email: 'buyer@example.com',
    gateway: 'tipjar',
  });
  assert.equal(placed.statusCode, 303, placed.body);
  const invoiceId = invoiceIdOf(placed.headers.location, base);
  assert.equal((await getPage(app, `${base}/invoices/${invoiceId}`, held)).statusCode, 200);
  assert.equal((await getPage(app, `${base}/invoices/${invoiceId}`)).statusCode, 401, 'not without the unlock cookie');
  assert.deepEqual(JSON.parse((await getPage(app, `${base}/invoices/${invoiceId}/status`)).body), {
    status: 'pending',
  });
});

test('an invoice past its expiry reads as expired in the poll, and its page says so plainly', async (t) => {
  const { app, productId, keysVariant, base, stock } = await setup(t);
  const query = { product: String(productId), variant: String(keysVariant), quantity: '1' };
  const { form, res } = await placeOrder(app, base, query, { email: 'buyer@example.com', gateway: 'tipjar' });
  const invoiceId = invoiceIdOf(res.headers.location, base);
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', '=', invoiceId)
    .execute();

  assert.deepEqual(JSON.parse((await getPage(app, `${base}/invoices/${invoiceId}/status`)).body), {
    status: 'expired',
  });
  const page = await getPage(app, `${base}/invoices/${invoiceId}`, form);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /This order expired before it was paid/);
  assert.ok(!page.body.includes('Cancel this order'));
  assert.deepEqual(await stock(), { keys: 5, service: 10 }, 'opening the page applied the expiry');
});

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { build, freshConfig, onEnd, owner } from '../helpers/build.js';
import { mailedCode } from '../helpers/customer-session.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { getPage, openForm, postForm, tagById, textById, type WebForm } from '../helpers/web-forms.js';

/** The storefront's customer area through its forms: sign-in by a mailed code, the account, paying from the balance. */

async function setup(t: TestContext, app?: FastifyInstance) {
  app ??= await build(t);
  const api = await owner(app);
  // Keys no random token on a page (a CSRF token, an invoice id) can contain by chance, as "K3" can:
  // the tests look for them, and for their absence, in whole pages.
  const shop = await sellingShop(api, {
    serials: ['SERIAL-ONE-1111', 'SERIAL-TWO-2222', 'SERIAL-THREE-3333', 'SERIAL-FOUR-4444', 'SERIAL-FIVE-5555'],
  });
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  const base = `/s/${subdomain}`;
  const cookieName = `shopd_customer_${shop.shopId}`;
  /** A buyer who ordered once (completed) and whom the owner credited `amount`. */
  const customerWith = async (email: string, amount: number) => {
    const order = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 2 }],
      },
    });
    const id = order.json().data.id as string;
    const done = assertOk(await api.post(`/self/${shop.shopId}/invoices/${id}/process`));
    if (amount > 0)
      assertOk(await api.post(`/self/${shop.shopId}/customers/${done.customerId}/balance/add`, { amount }));
    return { id, customerId: done.customerId as number, keys: done.parts[0].deliverables as string[] };
  };
  /** Signs in through the forms; answers the CSRF form and the session cookie. */
  const signIn = async (email: string) => {
    const { form } = await openForm(app, `${base}/account`);
    const asked = await postForm(app, `${base}/account/sign-in`, form, { email });
    assert.equal(asked.statusCode, 303, asked.body);
    const verify = await openForm(app, String(asked.headers.location), form);
    const code = await mailedCode(app, shop.shopId, email);
    const res = await postForm(app, `${base}/account/verify`, verify.form, { email: email.toLowerCase(), code });
    assert.equal(res.statusCode, 303, res.body);
    const cookie = res.cookies.find((c) => c.name === cookieName);
    assert.ok(cookie);
    return { form: { token: verify.form.token, cookie: `${form.cookie}; ${cookieName}=${cookie.value}` }, cookie };
  };
  return { app, api, ...shop, base, cookieName, customerWith, signIn };
}

test('sign in with the mailed code, see balance and orders with their goods, pay from the balance, sign out', async (t) => {
  const { app, api, shopId, productId, keysVariant, serviceVariant, base, cookieName, customerWith } = await setup(t);
  const mine = await customerWith('buyer@example.com', 20);
  const theirs = await customerWith('someone@example.com', 0);

  // Not signed in: the e-mail form.
  const { page: start, form } = await openForm(app, `${base}/account`);
  assert.equal(start.statusCode, 200);
  assert.equal(start.headers['cache-control'], 'private, no-store');
  assert.match(start.body, /Sign in to your account/);
  assert.ok(tagById(start.body, 'email'));
  assert.match(tagById(start.body, 'email')!, /type="email"/);

  const bad = await postForm(app, `${base}/account/sign-in`, form, { email: 'not-an-address' });
  assert.equal(bad.statusCode, 400);
  assert.match(textById(bad.body, 'email-error') ?? '', /valid e-mail/);
  assert.match(tagById(bad.body, 'email')!, /value="not-an-address"/, 'the value is kept');

  const asked = await postForm(app, `${base}/account/sign-in`, form, { email: 'Buyer@Example.com' });
  assert.equal(asked.statusCode, 303);
  assert.equal(asked.headers.location, `${base}/account/verify?email=buyer%40example.com`);
  const { page: verifyPage, form: verifyForm } = await openForm(app, String(asked.headers.location), form);
  assert.equal(verifyPage.statusCode, 200);
  assert.match(verifyPage.body, /buyer@example\.com/);
  assert.match(tagById(verifyPage.body, 'code')!, /autocomplete="one-time-code"/i);
  const code = await mailedCode(app, shopId, 'buyer@example.com');
  assert.ok(!String(asked.headers.location).includes(code), 'the code is in no URL');

  const wrong = await postForm(app, `${base}/account/verify`, verifyForm, {
    email: 'buyer@example.com',
    code: code === '000000' ? '000001' : '000000',
  });
  assert.equal(wrong.statusCode, 401);
  assert.match(textById(wrong.body, 'code-error') ?? '', /wrong, has expired or was used up/);
  assert.ok(!wrong.cookies.some((c) => c.name === cookieName), 'no session for a wrong code');
  const malformed = await postForm(app, `${base}/account/verify`, verifyForm, {
    email: 'buyer@example.com',
    code: '12',
  });
  assert.equal(malformed.statusCode, 400);
  assert.match(textById(malformed.body, 'code-error') ?? '', /6 digits/);

  const verified = await postForm(app, `${base}/account/verify`, verifyForm, { email: 'buyer@example.com', code });
  assert.equal(verified.statusCode, 303);
  assert.equal(verified.headers.location, `${base}/account`);
  const cookie = verified.cookies.find((c) => c.name === cookieName) as
    | {
        name: string;
        value: string;
        path: string;
        httpOnly: boolean;
        sameSite: string;
        secure?: boolean;
        expires: Date;
      }
    | undefined;
  assert.ok(cookie, 'the session cookie is set');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Lax');
  assert.equal(cookie.path, base);
  assert.ok(!cookie.secure, 'not Secure when PUBLIC_URL is http');
  assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(cookie.expires.getTime() > Date.now() + 29 * 86_400_000);
  const signedIn: WebForm = { token: verifyForm.token, cookie: `${form.cookie}; ${cookieName}=${cookie.value}` };

  // The account: address, balance, own orders with their goods and links, nothing of the other buyer's.
  const account = await getPage(app, `${base}/account`, signedIn);
  assert.equal(account.statusCode, 200);
  assert.equal(account.headers['cache-control'], 'private, no-store');
  assert.match(account.body, /Signed in as <strong>buyer@example\.com<\/strong>/);
  assert.equal(textById(account.body, 'balance'), '$20.00');
  assert.ok(account.body.includes(`href="${base}/invoices/${mine.id}"`), 'a link to the order page');
  for (const key of mine.keys) assert.ok(account.body.includes(key), `the goods of the completed order: ${key}`);
  assert.ok(!account.body.includes(theirs.id), "not another buyer's order");
  for (const key of theirs.keys) assert.ok(!account.body.includes(key));
  assert.match(account.body, /Completed/);

  // Checkout while signed in: the balance is offered with the amount, the address is fixed.
  const checkoutUrl = `${base}/checkout?product=${productId}&variant=${serviceVariant}`;
  const { page: checkoutPage, form: checkoutForm } = await openForm(app, checkoutUrl, signedIn);
  assert.equal(checkoutPage.statusCode, 200);
  assert.ok(tagById(checkoutPage.body, 'gateway-balance'), 'the balance is offered to a signed-in buyer');
  assert.match(checkoutPage.body, /Store balance \(you have \$20\.00\)/);
  assert.match(tagById(checkoutPage.body, 'email')!, /value="buyer@example\.com"/);
  assert.match(tagById(checkoutPage.body, 'email')!, /readonly/i);
  const paid = await postForm(
    app,
    `${base}/checkout`,
    { token: checkoutForm.token, cookie: signedIn.cookie },
    {
      product: String(productId),
      variant: String(serviceVariant),
      quantity: '1',
      email: 'someone@example.com',
      gateway: 'balance',
    },
  );
  assert.equal(paid.statusCode, 303, paid.body);
  const paidId = /\/invoices\/([A-Za-z0-9_-]+)$/.exec(String(paid.headers.location))![1]!;
  const paidOrder = assertOk(await api.get(`/self/${shopId}/invoices/${paidId}`));
  assert.equal(paidOrder.status, 'completed');
  assert.equal(paidOrder.customerEmail, 'buyer@example.com', "the signed-in buyer's own address, whatever was typed");
  assert.equal(assertOk(await api.get(`/self/${shopId}/customers/${mine.customerId}`)).balance, 15);
  const after = await getPage(app, `${base}/account`, signedIn);
  assert.equal(textById(after.body, 'balance'), '$15.00');
  assert.ok(after.body.includes(`href="${base}/invoices/${paidId}"`));

  // Too little balance: the form comes back with the reason next to the gateway.
  const { form: again } = await openForm(app, `${base}/checkout?product=${productId}&variant=${keysVariant}`, signedIn);
  const poor = await postForm(
    app,
    `${base}/checkout`,
    { token: again.token, cookie: signedIn.cookie },
    { product: String(productId), variant: String(keysVariant), quantity: '2', email: '', gateway: 'balance' },
  );
  assert.equal(poor.statusCode, 422);
  assert.match(textById(poor.body, 'gateway-error') ?? '', /balance is too low/);

  // Sign out: the cookie goes, the session ends.
  const noToken = await postForm(app, `${base}/account/sign-out`, signedIn, {}, { csrf: false });
  assert.equal(noToken.statusCode, 403, 'a POST without CSRF is refused');
  assert.equal((await getPage(app, `${base}/account`, signedIn)).statusCode, 200);
  assert.match((await getPage(app, `${base}/account`, signedIn)).body, /Signed in as/);
  const out = await postForm(app, `${base}/account/sign-out`, signedIn, {});
  assert.equal(out.statusCode, 303);
  assert.equal(out.headers.location, `${base}/account`);
  const cleared = out.cookies.find((c) => c.name === cookieName);
  assert.ok(cleared && cleared.value === '', 'the cookie is cleared');
  const gone = await getPage(app, `${base}/account`, signedIn);
  assert.match(gone.body, /Sign in to your account/, 'the old cookie opens nothing');
  const sessions = await app.db.kysely
    .selectFrom('customer_sessions')
    .select('id')
    .where('shop_id', '=', shopId)
    .execute();
  assert.equal(sessions.length, 0);
  const anonymous = await getPage(app, checkoutUrl, signedIn);
  assert.equal(tagById(anonymous.body, 'gateway-balance'), undefined, 'no balance once signed out');
});

test('POSTs without a CSRF token are refused and do nothing', async (t) => {
  const { app, shopId, base } = await setup(t);
  const { form } = await openForm(app, `${base}/account`);
  const mails = async () =>
    (await app.db.kysely.selectFrom('mail_outbox').select('id').where('shop_id', '=', shopId).execute()).length;
  const before = await mails();
  const noCsrf = await postForm(app, `${base}/account/sign-in`, form, { email: 'buyer@example.com' }, { csrf: false });
  assert.equal(noCsrf.statusCode, 403);
  assert.equal(await mails(), before, 'no code mailed');
  const forged = await postForm(
    app,
    `${base}/account/sign-in`,
    { token: 'forged', cookie: form.cookie },
    {
      email: 'buyer@example.com',
    },
  );
  assert.equal(forged.statusCode, 403);
  const verify = await postForm(
    app,
    `${base}/account/verify`,
    form,
    { email: 'buyer@example.com', code: '123456' },
    {
      csrf: false,
    },
  );
  assert.equal(verify.statusCode, 403);
  assert.equal(await mails(), before);
});

test("a session of one shop does not open another shop's account", async (t) => {
  const { app, signIn } = await setup(t);
  const other = await setup(t, app);
  const { cookie } = await signIn('buyer@example.com');
  const res = await app.inject({ url: `${other.base}/account`, cookies: { [other.cookieName]: cookie.value } });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /Sign in to your account/);
});

test('the sign-in form answers 429 with Retry-After past the per-address limit', async (t) => {
  const { app, base } = await setup(t);
  const { form } = await openForm(app, `${base}/account`);
  for (let i = 0; i < 5; i++)
    assert.equal(
      (await postForm(app, `${base}/account/sign-in`, form, { email: 'buyer@example.com' })).statusCode,
      303,
    );
  const limited = await postForm(app, `${base}/account/sign-in`, form, { email: 'buyer@example.com' });
  assert.equal(limited.statusCode, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.match(limited.body, /Too many sign-in codes/);
});

test('the session cookie is Secure when PUBLIC_URL is https; codes and tokens never reach the log', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const config = await freshConfig(t, { PUBLIC_URL: 'https://shops.example.com' });
  const app = await buildApp({ config, logger: { level: 'trace', stream } });
  onEnd(t, () => app.close());
  const { shopId, base, customerWith, signIn } = await setup(t, app);
  await customerWith('buyer@example.com', 5);
  const { form, cookie } = await signIn('buyer@example.com');
  assert.equal((cookie as { secure?: boolean }).secure, true);
  const account = await getPage(app, `${base}/account`, form);
  assert.match(account.body, /Signed in as/);
  const code = await mailedCode(app, shopId, 'buyer@example.com');
  const log = lines.join('\n');
  assert.ok(
    lines.some((l) => l.includes('/account/verify')),
    'the verify requests are logged',
  );
  assert.ok(!log.includes(code), 'the code is not in the log');
  assert.ok(!log.includes(cookie.value), 'the session token is not in the log');
});

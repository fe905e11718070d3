import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { sweepCustomerSessions } from '../../src/modules/customer-sessions/index.js';
import { build, freshConfig, onEnd, owner } from '../helpers/build.js';
import { customerSession, mailedCode, requestCode } from '../helpers/customer-session.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/**
 * The customer area (issue 21): sign-in by a code mailed to the buyer, sessions scoped to one
 * shop, the buyer's own orders and balance, and the balance gateway reserved to the signed-in
 * owner of the address.
 */

type Inject = Awaited<ReturnType<FastifyInstance['inject']>>;
const reply = (r: Inject) => ({ status: r.statusCode, body: r.json(), headers: r.headers });

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const app = await build(t, env);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const base = `/v2/public/shops/${shop.shopId}`;
  const signIn = (email: string, extra: { key?: string; remoteAddress?: string } = {}) =>
    app
      .inject({
        method: 'POST',
        url: `${base}/customer/sign-in`,
        payload: { email, ...(extra.key ? { key: extra.key } : {}) },
        ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
      })
      .then(reply);
  const verify = (email: string, code: string, shopBase = base) =>
    app.inject({ method: 'POST', url: `${shopBase}/customer/session`, payload: { email, code } }).then(reply);
  const account = (token: string | undefined, query = '', shopBase = base) =>
    app
      .inject({
        url: `${shopBase}/customer${query}`,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      })
      .then(reply);
  const checkout = (body: object, token?: string, headers: Record<string, string> = {}) =>
    app
      .inject({
        method: 'POST',
        url: `${base}/invoices`,
        payload: body,
        headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      })
      .then(reply);
  const order = (over: object = {}) => ({
    customerEmail: 'buyer@example.com',
    gateway: 'tipjar',
    parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
    ...over,
  });
  /** A customer of the shop (through a first order) with this balance. */
  const fund = async (email: string, amount: number) => {
    const first = assertOk(await checkout(order({ customerEmail: email })));
    const { customerId } = assertOk(await api.get(`/self/${shop.shopId}/invoices/${first.id}`));
    assertOk(await api.post(`/self/${shop.shopId}/invoices/${first.id}/process`));
    assertOk(await api.post(`/self/${shop.shopId}/customers/${customerId}/balance/add`, { amount }));
    return customerId as number;
  };
  const codeRows = (email: string) =>
    app.db.kysely
      .selectFrom('customer_sign_in_codes')
      .selectAll()
      .where('shop_id', '=', shop.shopId)
      .where('email', '=', email)
      .orderBy('id')
      .execute();
  return { app, api, ...shop, base, signIn, verify, account, checkout, order, fund, codeRows };
}

test('a sign-in code is mailed through the outbox, stored only as its hash, and the answer is the same for anyone', async (t) => {
  const { app, shopId, signIn, fund, codeRows } = await setup(t);
  await fund('known@example.com', 1);
  const known = await signIn('Known@Example.com');
  const unknown = await signIn('nobody@example.com');
  assert.equal(known.status, 200);
  assert.deepEqual(known.body, {
    data: { email: 'known@example.com', codeValidMinutes: 15 },
    message: 'OK',
    errors: [],
    code: 'ok',
  });
  assert.deepEqual(unknown.body.data, { email: 'nobody@example.com', codeValidMinutes: 15 }, 'no account enumeration');
  assert.equal(unknown.status, known.status);

  const mails = await app.db.kysely
    .selectFrom('mail_outbox')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('subject', 'like', 'Your sign-in code%')
    .orderBy('id')
    .execute();
  assert.deepEqual(
    mails.map((m) => [m.to_address, m.status]),
    [
      ['known@example.com', 'pending'],
      ['nobody@example.com', 'pending'],
    ],
  );
  const code = await mailedCode(app, shopId, 'known@example.com');
  assert.match(code, /^\d{6}$/);
  assert.ok(mails[0]!.body_text.includes(code), 'the text part has the code');
  assert.ok(mails[0]!.body_html?.includes(code), 'the HTML part has the code');
  assert.ok(!mails[0]!.subject.includes(code), 'never in the subject');
  assert.match(mails[0]!.body_text, /15 minutes/);

  const [row] = await codeRows('known@example.com');
  assert.equal(row!.code_hash, createHash('sha256').update(code).digest('hex'));
  assert.ok(!JSON.stringify(row).includes(code), 'the code itself is not stored');
  assert.equal(row!.attempts, 0);
  assert.equal(row!.used_at, null);
  assert.ok(Math.abs(row!.expires_at - (row!.created_at + 15 * 60_000)) === 0);

  // Different codes per request, from a crypto source (not a counter): two codes are not equal by chance of 1e-6.
  const again = await requestCode(app, shopId, 'known@example.com');
  assert.notEqual(again, code);
});

test('a code opens a session once; a wrong, used, expired or unknown code is one and the same 401', async (t) => {
  const { app, shopId, verify, account, codeRows } = await setup(t);
  const email = 'buyer@example.com';
  const code = await requestCode(app, shopId, email);
  const wrong = code === '000000' ? '000001' : '000000';
  const refused = await verify(email, wrong);
  assertError(refused, 401, 'unauthorized');
  assert.deepEqual(refused.body.errors, ['code: is wrong, expired or used up']);

  const ok = await verify('BUYER@example.com', code);
  const session = assertOk(ok);
  assert.match(session.token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(session.email, email);
  const lasts = Date.parse(session.expiresAt) - Date.now();
  assert.ok(lasts > 29.9 * 86_400_000 && lasts <= 30 * 86_400_000, 'valid 30 days');
  const stored = await app.db.kysely.selectFrom('customer_sessions').selectAll().execute();
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.token_hash, createHash('sha256').update(session.token).digest('hex'));
  assert.ok(!JSON.stringify(stored).includes(session.token), 'only the hash of the token is kept');

  const used = await verify(email, code);
  assert.deepEqual(used.body, refused.body, 'a used code: the same answer');
  assert.equal(used.status, 401);
  assert.deepEqual((await verify('stranger@example.com', code)).body, refused.body, 'an unknown address: the same');

  // Expired: the row's expiry moved into the past (no sleeping).
  const fresh = await requestCode(app, shopId, email);
  await app.db.kysely
    .updateTable('customer_sign_in_codes')
    .set({ expires_at: Date.now() - 1 })
    .where('email', '=', email)
    .where('used_at', 'is', null)
    .execute();
  const expired = await verify(email, fresh);
  assert.equal(expired.status, 401);
  assert.deepEqual(expired.body, refused.body, 'an expired code: the same');
  assert.equal((await codeRows(email)).at(-1)!.used_at, null, 'an expired code is not used by the refusal');

  // A malformed code is a validation error, not a try.
  assertError(await verify(email, '12345'), 400, 'validation_error');
  assertError(await verify(email, 'abcdef'), 400, 'validation_error');
  assertOk(await account(session.token));
});

test('five wrong tries kill a code, parallel guesses included; a new code works', async (t) => {
  const { app, shopId, verify, codeRows } = await setup(t);
  const email = 'buyer@example.com';
  const code = await requestCode(app, shopId, email);
  const wrongs = Array.from({ length: 8 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
  // Eight wrong guesses at once: the code is tried at most five times.
  const answers = await Promise.all(wrongs.map((w) => verify(email, w)));
  assert.ok(answers.every((a) => a.status === 401));
  assert.equal((await codeRows(email))[0]!.attempts, 5);
  const late = await verify(email, code);
  assertError(late, 401, 'unauthorized');
  assert.equal((await codeRows(email))[0]!.used_at, null, 'dead, not used');

  const next = await requestCode(app, shopId, email);
  for (let i = 0; i < 4; i++)
    assertError(await verify(email, next === '999999' ? '000000' : '999999'), 401, 'unauthorized');
  assertOk(await verify(email, next));
});

test('the same code sent twice at once opens exactly one session; its sibling codes are spent with it', async (t) => {
  const { app, shopId, verify, codeRows } = await setup(t);
  const email = 'buyer@example.com';
  const first = await requestCode(app, shopId, email);
  const second = await requestCode(app, shopId, email);
  const answers = await Promise.all([verify(email, second), verify(email, second), verify(email, second)]);
  assert.equal(answers.filter((a) => a.status === 200).length, 1);
  assert.ok(answers.filter((a) => a.status !== 200).every((a) => a.status === 401));
  assert.ok((await codeRows(email)).every((r) => r.used_at !== null));
  assertError(await verify(email, first), 401, 'unauthorized');
  const sessions = await app.db.kysely.selectFrom('customer_sessions').select('id').execute();
  assert.equal(sessions.length, 1);
});

test('a session opens its own shop only, and signing out ends it', async (t) => {
  const { app, api, shopId, base, account, verify } = await setup(t);
  const other = await sellingShop(await owner(app));
  const otherBase = `/v2/public/shops/${other.shopId}`;
  const email = 'buyer@example.com';
  const token = await customerSession(app, shopId, email);

  assert.equal(assertOk(await account(token)).email, email);
  const subdomain = assertOk(await api.get(`/self/${shopId}/settings`)).subdomain;
  assert.equal(
    assertOk(await account(token, '', `/v2/public/shops/${subdomain}`)).email,
    email,
    'the shop by its subdomain',
  );
  assertError(await account(token, '', otherBase), 401, 'unauthorized');
  // A code of one shop does not open the other.
  const code = await requestCode(app, shopId, email);
  assertError(await verify(email, code, otherBase), 401, 'unauthorized');

  assertError(await account(undefined), 401, 'unauthorized');
  assertError(await account('not-a-token'), 401, 'unauthorized');
  assertError(await account('x'.repeat(43)), 401, 'unauthorized');

  const signOut = (t?: string, url = `${base}/customer/session`) =>
    app.inject({ method: 'DELETE', url, headers: t ? { authorization: `Bearer ${t}` } : {} }).then(reply);
  assertError(await signOut(token, `${otherBase}/customer/session`), 401, 'unauthorized');
  assertOk(await account(token));
  assert.deepEqual(assertOk(await signOut(token)), { signedOut: true });
  assertError(await account(token), 401, 'unauthorized');
  assertError(await signOut(token), 401, 'unauthorized');
  assertError(await signOut(undefined), 401, 'unauthorized');

  // An expired session opens nothing.
  const later = await customerSession(app, shopId, email);
  await app.db.kysely
    .updateTable('customer_sessions')
    .set({ expires_at: Date.now() - 1 })
    .execute();
  assertError(await account(later), 401, 'unauthorized');
});

test("the account lists only the buyer's own orders of this shop, newest first, with the goods of completed ones", async (t) => {
  const { app, api, shopId, productId, keysVariant, serviceVariant, account, checkout, order } = await setup(t);
  const email = 'buyer@example.com';
  const pending = assertOk(await checkout(order({ customerEmail: 'Buyer@example.com' })));
  const done = assertOk(
    await checkout(
      order({ parts: [{ productId, productVariantId: serviceVariant, quantity: 2 }], customerEmail: email }),
    ),
  );
  const owned = assertOk(await api.post(`/self/${shopId}/invoices/${done.id}/process`));
  assertOk(await api.post(`/self/${shopId}/customers/${owned.customerId}/balance/add`, { amount: 12.5 }));
  // Another buyer of this shop, and this buyer in another shop: neither shows.
  assertOk(await checkout(order({ customerEmail: 'someone@example.com' })));
  const otherApi = await owner(app);
  const other = await sellingShop(otherApi);
  const elsewhere = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${other.shopId}/invoices`,
    payload: {
      customerEmail: email,
      gateway: 'tipjar',
      parts: [{ productId: other.productId, productVariantId: other.keysVariant, quantity: 1 }],
    },
  });
  assert.equal(elsewhere.statusCode, 200);
  // Apart in time, so "newest first" is the creation order.
  await app.db.kysely
    .updateTable('invoices')
    .set({ created_at: Date.now() - 60_000 })
    .where('id', '=', pending.id)
    .execute();

  const token = await customerSession(app, shopId, email);
  const res = await account(token);
  assert.equal(res.headers['cache-control'], 'private, no-store');
  const data = assertOk(res);
  assert.equal(data.email, email);
  assert.equal(data.balance, 12.5);
  assert.equal(data.currency, 'USD');
  assert.deepEqual(
    data.orders.items.map((i: { id: string }) => i.id),
    [done.id, pending.id],
  );
  assert.equal(data.orders.totalCount, 2);
  const [completed, unpaid] = data.orders.items;
  assert.equal(completed.status, 'completed');
  assert.equal(completed.total, 10);
  assert.ok(completed.completedAt);
  assert.deepEqual(completed.parts[0].deliverables, ['Support text'], 'the goods of a completed order');
  assert.equal(unpaid.status, 'pending');
  assert.deepEqual(unpaid.parts[0].deliverables, [], 'nothing before payment');
  assert.equal(unpaid.parts[0].variantId, keysVariant);
  assert.match(unpaid.payment.instructions, /tip jar/);
  assert.ok(!JSON.stringify(data).includes('someone@example.com'));
  assert.ok(!JSON.stringify(data).includes('127.0.0.1"'), 'no IP');

  // Paged: by number, and by the cursor the first page answers.
  const first = assertOk(await account(token, '?pageSize=1'));
  assert.equal(first.orders.items[0].id, done.id);
  assert.equal(first.orders.totalPages, 2);
  assert.ok(first.orders.nextCursor);
  const second = assertOk(await account(token, `?pageSize=1&cursor=${first.orders.nextCursor}`));
  assert.deepEqual(
    second.orders.items.map((i: { id: string }) => i.id),
    [pending.id],
  );
  assert.equal(second.orders.nextCursor, null);
  assert.equal(assertOk(await account(token, '?pageSize=1&pageNumber=2')).orders.items[0].id, pending.id);
  assertError(await account(token, '?cursor=bogus'), 400, 'validation_error');

  // An address that never ordered here signs in to an empty account.
  const stranger = assertOk(await account(await customerSession(app, shopId, 'new@example.com')));
  assert.deepEqual([stranger.balance, stranger.orders.items, stranger.orders.totalCount], [0, [], 0]);
});

test('the balance gateway needs a session of the paying address: none 401, another 403, own completes; nothing kept when refused', async (t) => {
  const { app, api, shopId, productId, checkout, order, fund } = await setup(t);
  const customerId = await fund('buyer@example.com', 20);
  await fund('other@example.com', 20);
  const count = async () =>
    (await app.db.kysely.selectFrom('invoices').select('id').where('shop_id', '=', shopId).execute()).length;
  const stock = async () => assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`)).variants[0].stock;
  const stockBefore = await stock();
  const before = await count();
  const balance = async () => assertOk(await api.get(`/self/${shopId}/customers/${customerId}`)).balance;
  const byBalance = order({ gateway: 'balance' });

  const none = await checkout(byBalance);
  assertError(none, 401, 'unauthorized');
  assert.match(none.body.errors[0], /^authorization: /);
  assertError(await checkout(byBalance, 'not-a-session'), 401, 'unauthorized');
  const others = await customerSession(app, shopId, 'other@example.com');
  const forbidden = await checkout(byBalance, others);
  assertError(forbidden, 403, 'forbidden');
  assert.deepEqual(forbidden.body.errors, ['customerEmail: is not the e-mail address of the signed-in customer']);
  assert.equal(await count(), before, 'no invoice made');
  assert.equal(await stock(), stockBefore, 'no stock reserved');
  assert.equal(await balance(), 20, 'nothing spent');

  // A refusal is not kept under its Idempotency-Key: once signed in, the same key places the order.
  const headers = { 'idempotency-key': 'balance-order-1' };
  assertError(await checkout(byBalance, undefined, headers), 401, 'unauthorized');
  const own = await customerSession(app, shopId, 'Buyer@Example.com');
  const paid = assertOk(
    await checkout(order({ gateway: 'balance', customerEmail: 'BUYER@example.com' }), own, headers),
  );
  assert.equal(paid.status, 'completed');
  assert.equal(paid.parts[0].deliverables.length, 1);
  assert.equal(await balance(), 10.01);
  // Another gateway needs no session and ignores one.
  assert.equal(assertOk(await checkout(order(), others)).status, 'pending');
  assert.equal(assertOk(await checkout(order())).status, 'pending');
});

test('balance checkouts in parallel never spend more than the balance', async (t) => {
  const { app, api, shopId, productId, serviceVariant, checkout, order, fund } = await setup(t, {
    RATE_LIMIT_PUBLIC_MAX: '0',
  });
  const customerId = await fund('buyer@example.com', 15);
  const token = await customerSession(app, shopId, 'buyer@example.com');
  // 5.00 each: the balance of 15 covers three of the eight.
  const body = order({ gateway: 'balance', parts: [{ productId, productVariantId: serviceVariant, quantity: 1 }] });
  const answers = await Promise.all(Array.from({ length: 8 }, () => checkout(body, token)));
  const paid = answers.filter((a) => a.status === 200);
  assert.equal(paid.length, 3, answers.map((a) => `${a.status} ${a.body.message}`).join('\n'));
  assert.ok(answers.filter((a) => a.status !== 200).every((a) => a.status === 422 && a.body.code === 'unprocessable'));
  assert.ok(paid.every((a) => a.body.data.status === 'completed'));
  assert.equal(assertOk(await api.get(`/self/${shopId}/customers/${customerId}`)).balance, 0);
  const ledger = await app.db.kysely
    .selectFrom('balance_entries')
    .select(['amount', 'balance_after'])
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  assert.equal(
    ledger.reduce((sum, e) => sum + Number(e.amount), 0),
    0,
  );
  assert.ok(ledger.every((e) => Number(e.balance_after) >= 0));
  const statuses = await app.db.kysely
    .selectFrom('invoices')
    .select('status')
    .where('shop_id', '=', shopId)
    .where('gateway', '=', 'balance')
    .execute();
  assert.equal(statuses.filter((s) => s.status === 'completed').length, 3);
  assert.ok(
    statuses.every((s) => s.status === 'completed' || s.status === 'cancelled'),
    'no order left to process',
  );
});

test('sign-in codes are limited per address and per client (429 with Retry-After, nothing sent)', async (t) => {
  const { app, shopId, signIn } = await setup(t);
  const mails = async () =>
    (
      await app.db.kysely
        .selectFrom('mail_outbox')
        .select('id')
        .where('shop_id', '=', shopId)
        .where('subject', 'like', 'Your sign-in code%')
        .execute()
    ).length;
  for (let i = 0; i < 5; i++) assertOk(await signIn('buyer@example.com', { remoteAddress: '10.0.0.1' }));
  const sixth = await signIn('BUYER@example.com', { remoteAddress: '10.0.0.2' });
  assertError(sixth, 429, 'rate_limited');
  const wait = Number(sixth.headers['retry-after']);
  assert.ok(wait > 0 && wait <= 3600, `Retry-After: ${sixth.headers['retry-after']}`);
  assert.equal(await mails(), 5);
  assertOk(await signIn('another@example.com', { remoteAddress: '10.0.0.2' }));

  // One client, many addresses: 20 an hour (10.0.0.1 has asked 5 times above).
  for (let i = 0; i < 15; i++) assertOk(await signIn(`spray${i}@example.com`, { remoteAddress: '10.0.0.1' }));
  const sprayed = await signIn('spray-more@example.com', { remoteAddress: '10.0.0.1' });
  assertError(sprayed, 429, 'rate_limited');
  assert.ok(Number(sprayed.headers['retry-after']) > 0);
  assert.equal(await mails(), 21);
  assertOk(await signIn('spray-more@example.com', { remoteAddress: '10.0.0.3' }));
});

test('wrong codes count as failed authentications of the client', async (t) => {
  const { app, shopId, verify } = await setup(t, { RATE_LIMIT_AUTH_FAILURES_MAX: '3' });
  const code = await requestCode(app, shopId, 'buyer@example.com');
  const wrong = code === '111111' ? '222222' : '111111';
  for (let i = 0; i < 3; i++) assertError(await verify('buyer@example.com', wrong), 401, 'unauthorized');
  const blocked = await verify('buyer@example.com', code);
  assertError(blocked, 429, 'rate_limited');
  assert.ok(Number(blocked.headers['retry-after']) > 0);
});

test('a password-protected shop needs its key to sign in and to read the account, not to sign out', async (t) => {
  const { app, api, shopId, base, signIn, account } = await setup(t);
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'open sesame' }));
  assertError(await signIn('buyer@example.com'), 403, 'shop_locked');
  assertError(await signIn('buyer@example.com', { key: 'wrong' }), 403, 'shop_locked');
  const token = await customerSession(app, shopId, 'buyer@example.com', { key: 'open sesame' });
  assertError(await account(token), 403, 'shop_locked');
  assert.equal(assertOk(await account(token, '?key=open%20sesame')).email, 'buyer@example.com');
  const out = await app.inject({
    method: 'DELETE',
    url: `${base}/customer/session`,
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(out.statusCode, 200);
  assertOk(await signIn('x@example.com', { key: 'open sesame' }));
});

test('codes and tokens never reach the log; the mail file under DATA_DIR/mail carries the code', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const config = await freshConfig(t);
  const app = await buildApp({ config, logger: { level: 'trace', stream } });
  onEnd(t, () => app.close());
  const shop = await sellingShop(await owner(app));
  const email = 'buyer@example.com';
  const code = await requestCode(app, shop.shopId, email);
  const token = await customerSession(app, shop.shopId, email);
  const base = `/v2/public/shops/${shop.shopId}`;
  await app.inject({ method: 'POST', url: `${base}/customer/session`, payload: { email, code } });
  await app.inject({ url: `${base}/customer`, headers: { authorization: `Bearer ${token}` } });
  await app.inject({
    method: 'DELETE',
    url: `${base}/customer/session`,
    headers: { authorization: `Bearer ${token}` },
  });
  assert.ok((await app.mailWorker.runOnce()) >= 2, 'the mails are sent (written as files without SMTP_URL)');

  const log = lines.join('\n');
  assert.ok(lines.length > 5, 'the log has lines');
  for (const secret of [code, token]) assert.ok(!log.includes(secret), `${secret} is in the log`);
  const dir = join(config.dataDir, 'mail');
  const files = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
  assert.ok(files.some((f) => f.includes(code) && /Your sign-in code/.test(f)));
});

test('the sweep removes day-old codes and expired sessions of every shop, and keeps live ones', async (t) => {
  const { app, shopId, account } = await setup(t);
  const live = await customerSession(app, shopId, 'live@example.com');
  const old = await customerSession(app, shopId, 'old@example.com');
  await requestCode(app, shopId, 'fresh@example.com');
  const db = app.db.kysely;
  await db
    .updateTable('customer_sessions')
    .set({ expires_at: Date.now() - 1 })
    .where('email', '=', 'old@example.com')
    .execute();
  await db
    .updateTable('customer_sign_in_codes')
    .set({ created_at: Date.now() - 25 * 3_600_000 })
    .where('email', '!=', 'fresh@example.com')
    .execute();
  assert.equal(await sweepCustomerSessions(db, app.ctx.clock.now()), 3, 'two old codes and one expired session');
  assert.deepEqual(
    (await db.selectFrom('customer_sign_in_codes').select('email').execute()).map((r) => r.email),
    ['fresh@example.com'],
  );
  assert.deepEqual(
    (await db.selectFrom('customer_sessions').select('email').execute()).map((r) => r.email),
    ['live@example.com'],
  );
  assertOk(await account(live));
  assertError(await account(old), 401, 'unauthorized');
});

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createPasswordSetupToken, setPassword, sweepOwnerSessions } from '../../src/modules/accounts/index.js';
import { authenticateApiKey, createApiKey, MAX_ACTIVE_KEYS_PER_ACCOUNT } from '../../src/modules/accounts/service.js';
import {
  authenticateSession,
  MAX_SESSIONS_PER_ACCOUNT,
  SESSION_IDLE_HOURS,
  SESSION_MAX_DAYS,
} from '../../src/modules/accounts/sessions.service.js';
import {
  FAILED_SIGN_INS_PER_CLIENT,
  FAILED_SIGN_INS_PER_EMAIL,
  FAILED_SIGN_INS_PER_EMAIL_ALL_CLIENTS,
} from '../../src/modules/accounts/sign-in-limits.js';
import { build, client, owner, type Reply } from '../helpers/build.js';
import { atTime } from '../helpers/clock.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { redisAvailable, testRedisUrl } from '../helpers/redis.js';

/**
 * The owner's sign-in to the web admin (issue 22): e-mail and password, a session cookie with
 * CSRF protection on writes, one-time links to set a password, and the account's API keys managed
 * through the session. The API key path stays as it was.
 */

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

type Inject = Awaited<ReturnType<FastifyInstance['inject']>>;
const reply = (r: Inject): Reply => ({
  status: r.statusCode,
  body: r.body ? r.json() : undefined,
  headers: r.headers as Reply['headers'],
});

/** The Set-Cookie lines of an answer, by cookie name. */
function setCookies(res: Reply): Map<string, { value: string; line: string }> {
  const header = res.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return new Map(
    lines.map((line) => {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      return [pair.slice(0, at), { value: pair.slice(at + 1), line }];
    }),
  );
}

/** A signed-in browser: its cookies (session and CSRF secret) and the CSRF token it was given. */
interface Browser {
  token: string;
  csrfToken: string;
  cookie: string;
  signIn: Reply;
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** A write with the CSRF token. */
  write(method: string, url: string, body?: unknown): Promise<Reply>;
}

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const app = await build(t, env);
  const db = app.db.kysely;
  let accounts = 0;
  /** An account with an API key and a password. */
  const account = async (scopes?: ('read' | 'write')[]) => {
    const email = `owner${++accounts}-${randomBytes(4).toString('hex')}@example.com`;
    const api = await owner(app, { email, scopes });
    await setPassword(app.ctx, email, PASSWORD);
    const { id } = await db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    return { email, api, accountId: id };
  };
  const postSession = (body: object, extra: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
    app
      .inject({
        method: 'POST',
        url: '/self/session',
        payload: body,
        ...(extra.headers ? { headers: extra.headers } : {}),
        ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
      })
      .then(reply);
  const browserOf = (signIn: Reply): Browser => {
    const cookies = setCookies(signIn);
    const token = cookies.get('shopd_session')!.value;
    const cookie = `shopd_session=${token}; shopd_admin_csrf=${cookies.get('shopd_admin_csrf')!.value}`;
    const request = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
      app
        .inject({
          method: method as 'GET',
          url,
          headers: { cookie, ...headers },
          ...(body === undefined ? {} : { payload: body as object }),
        })
        .then(reply);
    const csrfToken = signIn.body.data.csrfToken as string;
    return {
      token,
      csrfToken,
      cookie,
      signIn,
      request,
      write: (method, url, body) => request(method, url, body, { 'x-csrf-token': csrfToken }),
    };
  };
  const signIn = async (email: string, password = PASSWORD) => {
    const res = await postSession({ email, password });
    assertOk(res);
    return browserOf(res);
  };
  return { app, db, account, postSession, signIn, browserOf };
}

test('sign-in sets an HttpOnly, SameSite=Strict session cookie for the origin and answers a CSRF token', async (t) => {
  const { db, account, postSession } = await setup(t);
  const { email, accountId } = await account();
  const before = Date.now();
  const res = await postSession({ email: ` ${email.toUpperCase()} `.trim(), password: PASSWORD });
  const data = assertOk(res);
  assert.equal(data.accountId, accountId);
  assert.equal(data.email, email, 'the stored, lower-case address');
  assert.match(data.csrfToken, /\S{20,}/);
  const expiresAt = Date.parse(data.expiresAt);
  assert.ok(expiresAt >= before + SESSION_IDLE_HOURS * HOUR && expiresAt <= Date.now() + SESSION_IDLE_HOURS * HOUR);
  assert.equal(res.headers['cache-control'], 'no-store');

  const cookies = setCookies(res);
  const session = cookies.get('shopd_session')!;
  assert.match(session.value, /^[A-Za-z0-9_-]{43}$/);
  const attributes = (line: string) =>
    line
      .split(';')
      .slice(1)
      .map((a) => a.trim())
      .sort();
  assert.deepEqual(attributes(session.line), ['HttpOnly', 'Path=/self', 'SameSite=Strict'], 'no Secure over http');
  const csrf = cookies.get('shopd_admin_csrf')!;
  assert.deepEqual(attributes(csrf.line), ['HttpOnly', 'Path=/self', 'SameSite=Strict']);

  // Only the token's hash is kept.
  const rows = await db.selectFrom('owner_sessions').selectAll().where('account_id', '=', accountId).execute();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.token_hash, sha256(session.value));
  assert.ok(!JSON.stringify(rows).includes(session.value));
  assert.equal(rows[0]!.expires_at, expiresAt);
});

test('over https (behind a trusted proxy) both cookies are Secure', async (t) => {
  const { account, postSession } = await setup(t, { TRUST_PROXY: 'true' });
  const { email } = await account();
  const res = await postSession({ email, password: PASSWORD }, { headers: { 'x-forwarded-proto': 'https' } });
  assertOk(res);
  const cookies = setCookies(res);
  assert.match(cookies.get('shopd_session')!.line, /; Secure/);
  assert.match(cookies.get('shopd_admin_csrf')!.line, /; Secure/);
});

test('with an https PUBLIC_URL both cookies are Secure, even when the proxy in front is not trusted', async (t) => {
  const { account, postSession } = await setup(t, { PUBLIC_URL: 'https://shop.example' });
  const { email } = await account();
  const res = await postSession({ email, password: PASSWORD });
  assertOk(res);
  const cookies = setCookies(res);
  assert.match(cookies.get('shopd_session')!.line, /; Secure/);
  assert.match(cookies.get('shopd_admin_csrf')!.line, /; Secure/);
});

test('a new sign-in ends the session the browser held; an account keeps at most its 10 newest sessions', async (t) => {
  const { db, account, postSession, signIn } = await setup(t);
  const alice = await account();
  const first = await signIn(alice.email);
  const again = await postSession({ email: alice.email, password: PASSWORD }, { headers: { cookie: first.cookie } });
  assertOk(again);
  assertError(await first.request('GET', '/self/shops'), 401, 'unauthorized');

  const browsers = [];
  for (let i = 0; i < MAX_SESSIONS_PER_ACCOUNT + 2; i++) browsers.push(await signIn(alice.email));
  const live = await db.selectFrom('owner_sessions').select('id').where('account_id', '=', alice.accountId).execute();
  assert.equal(live.length, MAX_SESSIONS_PER_ACCOUNT);
  assertError(await browsers[0]!.request('GET', '/self/shops'), 401, 'unauthorized');
  assertOk(await browsers.at(-1)!.request('GET', '/self/shops'));
});

test('made-up session cookies count as unknown credentials: past the limit, a 429 before any lookup', async (t) => {
  const { app } = await setup(t, { RATE_LIMIT_AUTH_FAILURES_MAX: '3' });
  const statuses = [];
  for (let i = 0; i < 6; i++) {
    const res = await app.inject({
      method: 'GET',
      url: '/self/shops',
      headers: { cookie: `shopd_session=${randomBytes(32).toString('base64url')}` },
      remoteAddress: '203.0.113.50',
    });
    statuses.push(res.statusCode);
  }
  assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429]);
});

test('changing the password counts wrong current passwords like failed sign-ins', async (t) => {
  const { account } = await setup(t);
  const alice = await account();
  for (let i = 0; i < FAILED_SIGN_INS_PER_EMAIL; i++)
    assertError(
      await alice.api.put('/self/password', {
        currentPassword: `wrong ${i} password`,
        newPassword: 'a new password 1',
      }),
      400,
      'validation_error',
    );
  assertError(
    await alice.api.put('/self/password', { currentPassword: PASSWORD, newPassword: 'a new password 1' }),
    429,
    'rate_limited',
  );
});

test(`an account holds at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active API keys; a revoked one makes room`, async (t) => {
  const { account } = await setup(t);
  const alice = await account();
  // The account's first key is alice.api's own.
  const made = [];
  for (let i = 1; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++) made.push(assertOk(await alice.api.post('/self/keys', {})));
  assertError(await alice.api.post('/self/keys', {}), 409, 'conflict');
  assertOk(await alice.api.delete(`/self/keys/${made[0].id}`));
  assertOk(await alice.api.post('/self/keys', {}));
});

test('a wrong password, an unknown e-mail and an account without a password are the same 401', async (t) => {
  const { app, account, postSession } = await setup(t);
  const { email } = await account();
  const keyOnly = 'keys-only@example.com';
  await owner(app, { email: keyOnly });
  const answers = [
    await postSession({ email, password: 'not the password' }),
    await postSession({ email: 'nobody@example.com', password: PASSWORD }),
    await postSession({ email: keyOnly, password: PASSWORD }),
  ];
  for (const res of answers) {
    assertError(res, 401, 'unauthorized');
    assert.equal(res.body.message, 'E-mail or password is wrong.');
    assert.deepEqual(res.body, answers[0]!.body, 'nothing tells the cases apart');
    assert.equal(res.headers['set-cookie'], undefined, 'no cookie');
  }
  // Malformed input is a 400, before any attempt is counted.
  assertError(await postSession({ email: 'not an address', password: PASSWORD }), 400, 'validation_error');
  assertError(await postSession({ email, password: '' }), 400, 'validation_error');
  // The first owner's address has no dot in its domain, and is accepted.
  assertError(await postSession({ email: 'owner@localhost', password: PASSWORD }), 401, 'unauthorized');
});

for (const store of ['memory', 'redis'] as const) {
  test(`failed sign-ins are limited per address and client, per address and per client; past a limit even the right password is a 429 (${store})`, async (t) => {
    if (store === 'redis' && !(await redisAvailable())) return t.skip(`no Redis at ${testRedisUrl}`);
    // A prefix of this test's own: Redis keeps counters between runs.
    const env: Record<string, string> =
      store === 'redis' ? { REDIS_URL: testRedisUrl, REDIS_KEY_PREFIX: `t${randomBytes(4).toString('hex')}:` } : {};
    const { account, postSession, signIn } = await setup(t, env);
    const alice = await account();
    const bob = await account();
    const from = (n: number) => ({ remoteAddress: `198.51.100.${n}` });

    // A success clears the count: 9 failures, a success, then 10 more failures are still 401s.
    for (let i = 0; i < FAILED_SIGN_INS_PER_EMAIL - 1; i++)
      assertError(await postSession({ email: alice.email, password: `wrong ${i}` }, from(1)), 401, 'unauthorized');
    assertOk(await postSession({ email: alice.email, password: PASSWORD }, from(1)));
    for (let i = 0; i < FAILED_SIGN_INS_PER_EMAIL; i++)
      assertError(await postSession({ email: alice.email, password: `wrong ${i}` }, from(2)), 401, 'unauthorized');
    // That client is now refused for that address, whatever the password.
    const blocked = await postSession({ email: alice.email, password: PASSWORD }, from(2));
    assertError(blocked, 429, 'rate_limited');
    assert.ok(Number(blocked.headers['retry-after']) > 0, 'Retry-After');
    assert.equal(blocked.headers['set-cookie'], undefined);
    assertError(
      await postSession({ email: alice.email.toUpperCase(), password: PASSWORD }, from(2)),
      429,
      'rate_limited',
    );
    // A guesser who knows the address cannot lock its owner out: from elsewhere, the password works.
    assertOk(await postSession({ email: alice.email, password: PASSWORD }, from(3)));

    // Guesses spread over many clients meet the address's budget over all of them: then everyone is
    // refused. (A hundred password checks: once, on the in-process counters; Redis holds the same
    // counter kind, exercised above.)
    if (store === 'memory') {
      const carol = await account();
      for (let i = 0; i < FAILED_SIGN_INS_PER_EMAIL_ALL_CLIENTS; i++) {
        const client = from(30 + Math.floor(i / FAILED_SIGN_INS_PER_EMAIL));
        assertError(await postSession({ email: carol.email, password: `wrong ${i}` }, client), 401, 'unauthorized');
      }
      assertError(await postSession({ email: carol.email, password: PASSWORD }, from(99)), 429, 'rate_limited');
    }

    // Another address is not affected.
    await signIn(bob.email);

    // Per client: 30 failures over any addresses, then a 429 for the client, even for a right password.
    for (let i = 0; i < FAILED_SIGN_INS_PER_CLIENT; i++)
      assertError(await postSession({ email: `guess${i}@example.com`, password: 'x' }, from(20)), 401, 'unauthorized');
    assertError(await postSession({ email: bob.email, password: PASSWORD }, from(20)), 429, 'rate_limited');
    assertOk(await postSession({ email: bob.email, password: PASSWORD }, from(21)));
  });
}

test('a session reads owner routes; a write without its CSRF token is a 403 that changes nothing', async (t) => {
  const { account, signIn, postSession } = await setup(t);
  const alice = await account();
  const shop = await createShop(alice.api, 'Cookie Shop');
  const browser = await signIn(alice.email);

  const shops = assertOk(await browser.request('GET', '/self/shops'));
  assert.deepEqual(
    shops.map((s: { id: number }) => s.id),
    [shop.id],
  );
  assert.equal(assertOk(await browser.request('GET', `/self/${shop.id}/settings`)).name, 'Cookie Shop');

  const rename = { newName: 'Renamed by CSRF' };
  // Another session of the same browser profile: the same CSRF secret cookie, so only the
  // binding of a token to its session tells the two apart.
  const secret = /shopd_admin_csrf=([^;]+)/.exec(browser.cookie)![1]!;
  const otherSignIn = await postSession(
    { email: alice.email, password: PASSWORD },
    { headers: { cookie: `shopd_admin_csrf=${secret}` } },
  );
  const other = assertOk(otherSignIn) as { csrfToken: string };
  const otherCookie = `shopd_session=${setCookies(otherSignIn).get('shopd_session')!.value}; shopd_admin_csrf=${secret}`;
  const refusals = [
    await browser.request('PUT', `/self/${shop.id}/settings/name`, rename),
    await browser.request('PUT', `/self/${shop.id}/settings/name`, rename, { 'x-csrf-token': 'nope' }),
    await browser.request('PUT', `/self/${shop.id}/settings/name`, rename, {
      'x-csrf-token': `${browser.csrfToken.slice(0, -2)}xx`,
    }),
    // Another session's token does not fit this session.
    await browser.request('PUT', `/self/${shop.id}/settings/name`, rename, { 'x-csrf-token': other.csrfToken }),
    // The right token, but without the secret cookie.
    await browser.request('PUT', `/self/${shop.id}/settings/name`, rename, {
      cookie: `shopd_session=${browser.token}`,
      'x-csrf-token': browser.csrfToken,
    }),
    await browser.request('POST', '/self/shops', { name: 'Planted' }),
    await browser.request('DELETE', '/self/session'),
  ];
  for (const res of refusals) {
    assertError(res, 403, 'forbidden');
    assert.equal(res.body.message, 'Missing or invalid CSRF token.');
  }
  assert.equal(assertOk(await alice.api.get(`/self/${shop.id}/settings`)).name, 'Cookie Shop', 'nothing changed');
  assert.equal(assertOk(await alice.api.get('/self/shops')).length, 1);
  assertOk(await browser.request('GET', '/self/session'));

  assertOk(await browser.write('PUT', `/self/${shop.id}/settings/name`, rename));
  assert.equal(assertOk(await alice.api.get(`/self/${shop.id}/settings`)).name, 'Renamed by CSRF');
  // The other session's token, with that session's cookie, is good.
  assertOk(
    await browser.request(
      'POST',
      '/self/shops',
      { name: 'Second' },
      { cookie: otherCookie, 'x-csrf-token': other.csrfToken },
    ),
  );
  assert.equal(assertOk(await alice.api.get('/self/shops')).length, 2);
});

test("account B's session gets 404 on A's shop and changes nothing", async (t) => {
  const { account, signIn } = await setup(t);
  const alice = await account();
  const bob = await account();
  const shop = await createShop(alice.api, 'Alice Shop');
  const browser = await signIn(bob.email);
  assertError(await browser.request('GET', `/self/${shop.id}/settings`), 404, 'not_found');
  assertError(
    await browser.write('PUT', `/self/${shop.id}/settings/name`, { newName: 'Bob was here' }),
    404,
    'not_found',
  );
  assertError(await browser.write('DELETE', `/self/${shop.id}/products/1`), 404, 'not_found');
  assert.deepEqual(assertOk(await browser.request('GET', '/self/shops')), []);
  assert.equal(assertOk(await alice.api.get(`/self/${shop.id}/settings`)).name, 'Alice Shop');
});

test('an expired session is a 401 that clears the cookie; the expiry slides with use up to 7 days', async (t) => {
  const { app, db, account, signIn } = await setup(t);
  const alice = await account();
  const browser = await signIn(alice.email);
  const session = assertOk(await browser.request('GET', '/self/session'));
  assert.equal(session.email, alice.email);
  assert.equal(session.accountId, alice.accountId);
  assert.equal(session.expiresAt, browser.signIn.body.data.expiresAt);
  assert.notEqual(session.csrfToken, browser.csrfToken, 'a fresh token');
  // A fresh token works like the first one.
  assertOk(await browser.request('POST', '/self/shops', { name: 'Fresh' }, { 'x-csrf-token': session.csrfToken }));

  // The expiry, driven by the context's clock set to each moment (no waiting): a use within 5 minutes writes nothing,
  // a later one moves the expiry to 12 h after it, never past 7 days after the sign-in.
  const row = () =>
    db.selectFrom('owner_sessions').selectAll().where('account_id', '=', alice.accountId).executeTakeFirstOrThrow();
  const { created_at: signedIn, expires_at: first } = await row();
  assert.ok(await authenticateSession(atTime(app.ctx, signedIn + 4 * 60_000), browser.token));
  assert.equal((await row()).expires_at, first, 'not written within 5 minutes');
  const later = signedIn + 11 * HOUR;
  assert.deepEqual(await authenticateSession(atTime(app.ctx, later), browser.token), {
    accountId: alice.accountId,
    keyId: null,
    sessionId: (await row()).id,
    scopes: new Set(['read', 'write']),
  });
  assert.equal((await row()).expires_at, later + SESSION_IDLE_HOURS * HOUR, 'slid');
  const cap = signedIn + SESSION_MAX_DAYS * 24 * HOUR;
  for (let at = later + 10 * HOUR; at < cap; at += 10 * HOUR)
    assert.ok(await authenticateSession(atTime(app.ctx, at), browser.token));
  assert.equal((await row()).expires_at, cap, 'never past 7 days after the sign-in');
  assert.equal(await authenticateSession(atTime(app.ctx, cap), browser.token), undefined);

  await db
    .updateTable('owner_sessions')
    .set({ expires_at: Date.now() - 1 })
    .where('account_id', '=', alice.accountId)
    .execute();
  const expired = await browser.request('GET', '/self/session');
  assertError(expired, 401, 'unauthorized');
  const cleared = setCookies(expired).get('shopd_session');
  assert.ok(cleared, 'the cookie is cleared');
  assert.equal(cleared.value, '');
  assert.match(cleared.line, /Max-Age=0/);
  assertError(await browser.request('GET', '/self/shops'), 401, 'unauthorized');
  // No cookie and no key at all.
  assertError(reply(await app.inject({ method: 'GET', url: '/self/session' })), 401, 'unauthorized');
});

test('sign-out ends the session and clears both cookies', async (t) => {
  const { account, signIn } = await setup(t);
  const alice = await account();
  const browser = await signIn(alice.email);
  const other = await signIn(alice.email);
  const out = await browser.write('DELETE', '/self/session');
  assert.equal(assertOk(out), null);
  const cookies = setCookies(out);
  for (const name of ['shopd_session', 'shopd_admin_csrf']) {
    assert.equal(cookies.get(name)?.value, '', `${name} is cleared`);
    assert.match(cookies.get(name)!.line, /Max-Age=0/);
  }
  assert.match(cookies.get('shopd_admin_csrf')!.line, /Path=\/self/);
  assertError(await browser.request('GET', '/self/session'), 401, 'unauthorized');
  assertError(await browser.write('DELETE', '/self/session'), 401, 'unauthorized');
  assertOk(await other.request('GET', '/self/session'));
  // With an API key there is no session to end: nothing changes.
  assert.equal(assertOk(await alice.api.delete('/self/session')), null);
  assertOk(await other.request('GET', '/self/session'));
  assertOk(await alice.api.get('/self/shops'));
});

test("a password change needs the current one and ends the account's other sessions", async (t) => {
  const { app, account, postSession, signIn } = await setup(t);
  const alice = await account();
  const bob = await account();
  const mine = await signIn(alice.email);
  const elsewhere = await signIn(alice.email);
  const bobs = await signIn(bob.email);
  const NEW = 'a brand new passphrase';

  const wrong = await mine.write('PUT', '/self/password', { currentPassword: 'not it at all', newPassword: NEW });
  assertError(wrong, 400, 'validation_error');
  assert.deepEqual(wrong.body.errors, ['currentPassword: is not the current password']);
  const short = await mine.write('PUT', '/self/password', { currentPassword: PASSWORD, newPassword: 'short' });
  assertError(short, 400, 'validation_error');
  assert.ok(short.body.errors.some((e: string) => e.startsWith('newPassword: ')));
  // 10 characters as sent, 9 after NFKC (A and a combining ring become one Å).
  const composed = await mine.write('PUT', '/self/password', {
    currentPassword: PASSWORD,
    newPassword: 'abcdefghA\u030a',
  });
  assertError(composed, 400, 'validation_error');
  assert.deepEqual(composed.body.errors, ['newPassword: must be at least 10 characters long']);
  assertError(
    await mine.request('PUT', '/self/password', { currentPassword: PASSWORD, newPassword: NEW }),
    403,
    'forbidden',
  );
  assertOk(await elsewhere.request('GET', '/self/session'));

  assert.deepEqual(
    assertOk(await mine.write('PUT', '/self/password', { currentPassword: PASSWORD, newPassword: NEW })),
    { revokedApiKeys: 0, activeApiKeys: 1 },
    'the API key keeps working, and the answer says so',
  );
  assertOk(await mine.request('GET', '/self/session'));
  assertError(await elsewhere.request('GET', '/self/session'), 401, 'unauthorized');
  assertOk(await bobs.request('GET', '/self/session')); // another account's session goes on
  assertError(await postSession({ email: alice.email, password: PASSWORD }), 401, 'unauthorized');
  await signIn(alice.email, NEW);

  // With an API key: every session of the account ends.
  assertOk(await alice.api.put('/self/password', { currentPassword: NEW, newPassword: PASSWORD }));
  assertError(await mine.request('GET', '/self/session'), 401, 'unauthorized');
  await signIn(alice.email, PASSWORD);
  // Setting it from the command line ends them all too.
  const last = await signIn(alice.email);
  assert.deepEqual(await setPassword(app.ctx, alice.email.toUpperCase(), NEW), { email: alice.email });
  assertError(await last.request('GET', '/self/session'), 401, 'unauthorized');
});

test('a setup link sets the password once; a used, expired, replaced or unknown one is a 404', async (t) => {
  const { app, db, postSession, signIn } = await setup(t);
  const api = await owner(app, { email: 'fresh@example.com' });
  const { id: accountId } = await db
    .selectFrom('accounts')
    .select('id')
    .where('email', '=', 'fresh@example.com')
    .executeTakeFirstOrThrow();
  const setupWith = (token: string, password = PASSWORD) =>
    app.inject({ method: 'POST', url: '/self/password-setup', payload: { token, password } }).then(reply);
  const gone = (res: Reply) => {
    assertError(res, 404, 'not_found');
    assert.equal(
      res.body.message,
      'This link is unknown, used or expired; ask for a new one with `shopd users setup-link`.',
    );
  };

  const token = await createPasswordSetupToken(app.ctx, accountId);
  const stored = await db.selectFrom('owner_password_tokens').selectAll().where('account_id', '=', accountId).execute();
  assert.deepEqual(
    stored.map((r) => r.token_hash),
    [sha256(token)],
    'kept as its hash',
  );
  // A password that breaks the rules leaves the link usable.
  assertError(await setupWith(token, 'too short'), 400, 'validation_error');
  assert.deepEqual(assertOk(await setupWith(token)), { email: 'fresh@example.com' });
  await signIn('fresh@example.com');
  gone(await setupWith(token, 'another password here'));
  assertError(
    await postSession({ email: 'fresh@example.com', password: 'another password here' }),
    401,
    'unauthorized',
  );

  // A newer link retires the older one; setting the password ends the sessions.
  const session = await signIn('fresh@example.com');
  const older = await createPasswordSetupToken(app.ctx, accountId);
  const newer = await createPasswordSetupToken(app.ctx, accountId);
  gone(await setupWith(older, 'third password here'));
  assertOk(await setupWith(newer, 'third password here'));
  assertError(await session.request('GET', '/self/session'), 401, 'unauthorized');
  await signIn('fresh@example.com', 'third password here');

  const expiring = await createPasswordSetupToken(app.ctx, accountId);
  await db
    .updateTable('owner_password_tokens')
    .set({ expires_at: Date.now() - 1 })
    .where('token_hash', '=', sha256(expiring))
    .execute();
  gone(await setupWith(expiring, 'fourth password here'));
  gone(await setupWith(randomBytes(32).toString('base64url')));
  gone(await setupWith('not-even-a-token'));
  await signIn('fresh@example.com', 'third password here');
  assertOk(await api.get('/self/shops'));

  // The hourly sweep removes the dead links and sessions.
  await db
    .updateTable('owner_sessions')
    .set({ expires_at: Date.now() - 1 })
    .where('account_id', '=', accountId)
    .execute();
  assert.ok((await sweepOwnerSessions(db, app.ctx.clock.now())) >= 4);
  assert.deepEqual(
    await db.selectFrom('owner_password_tokens').select('id').where('account_id', '=', accountId).execute(),
    [],
  );
  assert.deepEqual(
    await db.selectFrom('owner_sessions').select('id').where('account_id', '=', accountId).execute(),
    [],
  );
});

test('API keys through the session: create, list and revoke those of the account only', async (t) => {
  const { app, account, signIn } = await setup(t);
  const alice = await account();
  const bob = await account();
  const browser = await signIn(alice.email);

  assertError(await browser.request('POST', '/self/keys', { label: 'CI' }), 403, 'forbidden');
  const created = assertOk(await browser.write('POST', '/self/keys', { label: '  CI  ', scopes: ['read'] }));
  assert.match(created.key, /^shopd_[A-Za-z0-9_-]{43}$/);
  assert.equal(created.label, 'CI');
  assert.deepEqual(created.scopes, ['read']);
  assert.equal(created.lastUsedAt, null);
  assert.equal(created.revokedAt, null);
  assert.ok(created.key.startsWith(created.prefix));
  const ci = client(app, created.key);
  assertOk(await ci.get('/self/shops'));
  assertError(await ci.post('/self/shops', { name: 'Nope' }), 403, 'forbidden');
  const full = assertOk(await browser.write('POST', '/self/keys', {}));
  assert.deepEqual(full.scopes, ['read', 'write'], 'a session grants both scopes by default');
  assert.equal(full.label, null);

  const listed = assertOk(await browser.request('GET', '/self/keys')).items;
  assert.deepEqual(
    listed.map((k: { id: number }) => k.id),
    [full.id, created.id, listed.at(-1).id],
    'newest first',
  );
  assert.ok(
    listed.every((k: object) => !('key' in k)),
    'never the keys themselves',
  );
  assert.ok(!JSON.stringify(listed).includes(created.key));
  const used = listed.find((k: { id: number }) => k.id === created.id);
  assert.ok(used.lastUsedAt !== null && Date.parse(used.lastUsedAt) <= Date.now(), 'the key was used');
  const bobsKeys = assertOk(await bob.api.get('/self/keys')).items;
  assert.equal(bobsKeys.length, 1, "bob sees his one key, none of alice's");
  const [bobsKey] = bobsKeys;
  assert.ok(!listed.some((k: { id: number }) => k.id === bobsKey.id));

  // Another account's key, or one that does not exist, is a 404, and stays valid.
  assertError(await browser.write('DELETE', `/self/keys/${bobsKey.id}`), 404, 'not_found');
  assertError(await browser.write('DELETE', '/self/keys/999999'), 404, 'not_found');
  assertOk(await bob.api.get('/self/shops'));
  assertError(await browser.request('DELETE', `/self/keys/${created.id}`), 403, 'forbidden');
  assertOk(await ci.get('/self/shops'));

  const revoked = assertOk(await browser.write('DELETE', `/self/keys/${created.id}`));
  assert.equal(revoked.id, created.id);
  assert.ok(revoked.revokedAt);
  assertError(await ci.get('/self/shops'), 401, 'unauthorized');
  assertError(await browser.write('DELETE', `/self/keys/${created.id}`), 404, 'not_found');
});

test('the API key path is as before: no CSRF token, and a key wins over a session cookie; a key grants only its scopes', async (t) => {
  const { app, account, signIn } = await setup(t);
  const alice = await account();
  const bob = await account();
  const bobs = await signIn(bob.email);

  // A key needs no CSRF token.
  const made = assertOk(await alice.api.post('/self/keys', { label: 'from a key' }));
  assert.deepEqual(made.scopes, ['read', 'write']);
  assert.deepEqual(assertOk(await alice.api.get('/self/session')), {
    accountId: alice.accountId,
    email: alice.email,
    csrfToken: null,
    expiresAt: null,
  });
  // With both, the key decides: alice's shop is made, by alice, without a CSRF token.
  const both = await bobs.request(
    'POST',
    '/self/shops',
    { name: 'By key' },
    { authorization: `Bearer ${alice.api.key}` },
  );
  assertOk(both);
  assert.equal(assertOk(await alice.api.get('/self/shops')).length, 1);
  assert.deepEqual(assertOk(await bob.api.get('/self/shops')), []);
  // An unknown key with a valid session cookie is still a 401: the cookie is not looked at.
  assertError(
    await bobs.request('GET', '/self/shops', undefined, { authorization: 'Bearer shopd_nope' }),
    401,
    'unauthorized',
  );

  const reader = await owner(app, { email: alice.email, scopes: ['read'] });
  assertError(await reader.post('/self/keys', {}), 403, 'forbidden');
  assertOk(await reader.get('/self/keys'));
  const writer = await owner(app, { email: alice.email, scopes: ['write'] });
  const refused = await writer.post('/self/keys', { scopes: ['read', 'write'] });
  assertError(refused, 403, 'forbidden');
  assert.match(refused.body.message, /lacks the "read" scope/);
  assert.deepEqual(assertOk(await writer.post('/self/keys', {})).scopes, ['write']);
});

test("a key's last use is written at most once a minute", async (t) => {
  const { app, db, account } = await setup(t);
  const { api } = await account();
  const lastUsed = async () =>
    (
      await db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('prefix', '=', api.key.slice(0, 12))
        .executeTakeFirstOrThrow()
    ).last_used_at;
  const start = Date.now() + HOUR;
  assert.ok(await authenticateApiKey(atTime(app.ctx, start), api.key));
  assert.equal(await lastUsed(), start);
  assert.ok(await authenticateApiKey(atTime(app.ctx, start + 59_000), api.key));
  assert.equal(await lastUsed(), start, 'not again within the minute');
  assert.ok(await authenticateApiKey(atTime(app.ctx, start + 60_000), api.key));
  assert.equal(await lastUsed(), start + 60_000);
});

test('the owner rate limit counts a session by its token', async (t) => {
  const { account, signIn } = await setup(t, { RATE_LIMIT_OWNER_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
  const alice = await account();
  const browser = await signIn(alice.email);
  for (let i = 0; i < 3; i++) assert.equal((await browser.request('GET', '/self/shops')).status, 200);
  assertError(await browser.request('GET', '/self/shops'), 429, 'rate_limited');
  const other = await signIn(alice.email);
  assert.equal((await other.request('GET', '/self/shops')).status, 200, 'another session has its own budget');
  assert.equal((await alice.api.get('/self/shops')).status, 200, 'and so has the key');
});

test('the OpenAPI document describes the cookie and which owner paths need no credentials', async (t) => {
  const { app } = await setup(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.deepEqual(doc.components.securitySchemes.cookieAuth, {
    type: 'apiKey',
    in: 'cookie',
    name: 'shopd_session',
    description: doc.components.securitySchemes.cookieAuth.description,
  });
  assert.match(doc.components.securitySchemes.cookieAuth.description, /X-CSRF-Token/);
  const owner = [{ apiKey: [] }, { cookieAuth: [] }];
  assert.deepEqual(doc.paths['/self/session'].post.security, []);
  assert.deepEqual(doc.paths['/self/password-setup'].post.security, []);
  assert.deepEqual(doc.paths['/self/session'].get.security, owner);
  assert.deepEqual(doc.paths['/self/keys'].post.security, owner);
  assert.deepEqual(doc.paths['/self/{shopId}/settings'].get.security, owner);
  assert.deepEqual(doc.paths['/self/session'].post.tags, ['Account']);
});

test('guesses from many clients cannot lock the owner out of a browser they signed in from before', async (t) => {
  const { account, postSession } = await setup(t);
  const alice = await account();
  const from = (n: number) => ({ remoteAddress: `203.0.113.${n}` });
  // The owner's browser signed in once: it carries the device cookie.
  const first = await postSession({ email: alice.email, password: PASSWORD }, from(1));
  assertOk(first);
  const device = setCookies(first).get('shopd_device');
  assert.ok(device, 'a sign-in sets the device cookie');
  assert.match(device.line, /HttpOnly/i);
  assert.match(device.line, /Path=\/self\/session/);
  // Then a guesser spreads the address's whole budget over ten clients.
  for (let i = 0; i < FAILED_SIGN_INS_PER_EMAIL_ALL_CLIENTS; i++) {
    const client = from(10 + Math.floor(i / FAILED_SIGN_INS_PER_EMAIL));
    assertError(await postSession({ email: alice.email, password: `wrong ${i}` }, client), 401, 'unauthorized');
  }
  // A browser without the cookie, from anywhere, is refused whatever the password ...
  assertError(await postSession({ email: alice.email, password: PASSWORD }, from(2)), 429, 'rate_limited');
  // ... and so is one with a forged or another address's cookie ...
  const [issuedAt] = device.value.split('.');
  for (const cookie of [`shopd_device=${issuedAt}.forged`, `shopd_device=${device.value}x`]) {
    assertError(
      await postSession({ email: alice.email, password: PASSWORD }, { ...from(2), headers: { cookie } }),
      429,
      'rate_limited',
    );
  }
  // ... but the owner's own browser still signs in, from a new address too.
  const cookie = `shopd_device=${device.value}`;
  assertOk(await postSession({ email: alice.email, password: PASSWORD }, { ...from(3), headers: { cookie } }));
  // Its own client's budget still holds: the cookie is no licence to guess.
  for (let i = 0; i < FAILED_SIGN_INS_PER_EMAIL; i++)
    assertError(
      await postSession({ email: alice.email, password: `guess ${i}` }, { ...from(4), headers: { cookie } }),
      401,
      'unauthorized',
    );
  assertError(
    await postSession({ email: alice.email, password: PASSWORD }, { ...from(4), headers: { cookie } }),
    429,
    'rate_limited',
  );
});

test('a password change can revoke every API key of the account in the same call', async (t) => {
  const { app, account } = await setup(t);
  const alice = await account();
  const second = await createApiKey(app.ctx, { email: alice.email });
  const other = await account();
  const changed = assertOk(
    await alice.api.put('/self/password', {
      currentPassword: PASSWORD,
      newPassword: 'another long password',
      revokeApiKeys: true,
    }),
  );
  assert.deepEqual(changed, { revokedApiKeys: 2, activeApiKeys: 0 });
  assertError(await alice.api.get('/self/shops'), 401, 'unauthorized');
  const secondKey = await app.inject({
    method: 'GET',
    url: '/self/shops',
    headers: { authorization: `Bearer ${second.key}` },
  });
  assert.equal(secondKey.statusCode, 401);
  assertOk(await other.api.get('/self/shops')); // another account's key goes on
  // A wrong current password revokes nothing.
  const bob = await account();
  assertError(
    await bob.api.put('/self/password', {
      currentPassword: 'not it',
      newPassword: 'another long password',
      revokeApiKeys: true,
    }),
    400,
    'validation_error',
  );
  assertOk(await bob.api.get('/self/shops'));
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { FastifyInstance } from 'fastify';
import { build, type Client, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

/**
 * Issue 36, item 2: the self-hosted proof-of-work challenge (ALTCHA). A shop asks a client for a
 * solved challenge before a checkout, a ticket or a sign-in code when its protection says
 * `challenge: 'always'`, or `'suspicious'` once the client (address or IPv6 /64) took
 * `challengeThreshold` such actions in the last hour. Without one: 428 challenge_required, and
 * nothing is made. Clients are told apart by forwarded addresses (TRUST_PROXY); the work is made
 * tiny by the test configuration (CHALLENGE_COST 1), so nothing here depends on the machine's speed.
 */

const MINUTE = 60_000;

interface Setup {
  app: FastifyInstance;
  api: Client;
  clock: TestClock;
  shopId: number;
  subdomain: string;
  buyBody: Record<string, unknown>;
}

async function setup(t: TestContext, protection: Record<string, unknown>): Promise<Setup> {
  const clock = new TestClock();
  const app = await build(t, { TRUST_PROXY: 'true', RATE_LIMIT_PUBLIC_MAX: '0' }, { clock });
  const api = await owner(app);
  const shop = await createShop(api, 'Guarded');
  assertOk(await api.put(`/self/${shop.id}/settings/protection`, protection));
  assertOk(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  const product = assertOk(
    await api.post(`/self/${shop.id}/v2/products`, {
      title: 'Wallpaper',
      description: 'A picture',
      variants: [
        { title: 'One', priceDetails: { amount: 2 }, productType: 'service', asService: { text: 'x', stock: null } },
      ],
    }),
  );
  const buyBody = {
    customerEmail: 'buyer@example.com',
    gateway: 'tipjar',
    parts: [{ productId: product.id, productVariantId: product.variants[0].id, quantity: 1 }],
  };
  return { app, api, clock, shopId: shop.id, subdomain: shop.subdomain, buyBody };
}

/** Fetches a challenge of the shop and solves it as the widget would, answering the X-Altcha value. */
async function solved(app: FastifyInstance, shopId: number): Promise<string> {
  const res = await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}/challenge` });
  assert.equal(res.statusCode, 200, res.body);
  const challenge = res.json();
  const solution = await solveChallenge({ challenge, deriveKey });
  assert.ok(solution, 'the challenge has a solution');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

async function post(
  app: FastifyInstance,
  url: string,
  payload: Record<string, unknown>,
  ip = '203.0.113.7',
  altcha?: string,
) {
  const headers: Record<string, string> = { 'x-forwarded-for': ip };
  if (altcha !== undefined) headers['x-altcha'] = altcha;
  const res = await app.inject({ method: 'POST', url, remoteAddress: '127.0.0.1', headers, payload });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

async function invoiceCount(api: Client, shopId: number): Promise<number> {
  return assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount;
}

test('GET challenge: a signed PBKDF2 challenge bound to the shop, never cached; an unknown shop is a 404', async (t) => {
  const { app, shopId, subdomain } = await setup(t, { challenge: 'always' });
  // The shop by its subdomain, as every public path takes it.
  const res = await app.inject({ method: 'GET', url: `/v2/public/shops/${subdomain}/challenge` });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['cache-control'], 'no-store');
  const body = res.json();
  assert.equal(body.parameters.algorithm, 'PBKDF2/SHA-256');
  assert.deepEqual(body.parameters.data, { shop: shopId });
  assert.match(body.signature, /^[0-9a-f]{64}$/);
  assert.match(body.parameters.keySignature, /^[0-9a-f]{64}$/);
  assert.ok(body.parameters.expiresAt > Date.now() / 1000 + 19 * 60);
  const again = (await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}/challenge` })).json();
  assert.notEqual(again.parameters.nonce, body.parameters.nonce, 'each challenge is new');

  const unknown = await app.inject({ method: 'GET', url: '/v2/public/shops/999999/challenge' });
  assertError({ status: unknown.statusCode, body: unknown.json() }, 404, 'not_found');
  const noSuchName = await app.inject({ method: 'GET', url: '/v2/public/shops/no-such-shop/challenge' });
  assertError({ status: noSuchName.statusCode, body: noSuchName.json() }, 404, 'not_found');
});

test("'always': a checkout needs a solution; without one 428 and no order; a solution opens one checkout, once", async (t) => {
  const { app, api, shopId, buyBody } = await setup(t, { challenge: 'always' });
  const url = `/v2/public/shops/${shopId}/invoices`;

  const refused = await post(app, url, buyBody);
  assertError(refused, 428, 'challenge_required');
  assert.match(refused.body.message, /challenge/);
  assert.deepEqual(refused.body.errors, ['X-Altcha: is required']);
  assert.equal(await invoiceCount(api, shopId), 0);

  const altcha = await solved(app, shopId);
  const placed = await post(app, url, buyBody, '203.0.113.7', altcha);
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  assert.equal(await invoiceCount(api, shopId), 1);

  const replayed = await post(app, url, buyBody, '203.0.113.8', altcha);
  assertError(replayed, 428, 'challenge_required');
  assert.deepEqual(replayed.body.errors, ['X-Altcha: is spent']);
  assert.equal(await invoiceCount(api, shopId), 1);
});

test('a solution that is altered, garbage, of another shop or expired is refused and changes nothing', async (t) => {
  const { app, api, clock, shopId, buyBody } = await setup(t, { challenge: 'always' });
  const url = `/v2/public/shops/${shopId}/invoices`;
  const other = await createShop(api, 'Other');
  assertOk(await api.put(`/self/${other.id}/settings/protection`, { challenge: 'always' }));

  const good = JSON.parse(Buffer.from(await solved(app, shopId), 'base64').toString());
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
  const cases: [string, string][] = [
    [
      'counter',
      encode({ ...good, solution: { ...good.solution, counter: good.solution.counter + 1, derivedKey: '00' } }),
    ],
    [
      'parameters',
      encode({ ...good, challenge: { ...good.challenge, parameters: { ...good.challenge.parameters, cost: 2 } } }),
    ],
    ['no signature', encode({ ...good, challenge: { parameters: good.challenge.parameters } })],
    ['not base64 JSON', 'not a payload at all'],
    ['wrong shape', encode({ challenge: 'x', solution: 1 })],
    ['too long', 'A'.repeat(5000)],
    ['test mode', encode({ challenge: null, solution: null, test: true })],
    ['another shop', await solved(app, other.id)],
  ];
  for (const [what, altcha] of cases) {
    const res = await post(app, url, buyBody, '203.0.113.9', altcha);
    assert.ok(res.status === 428 || res.status === 400, `${what}: ${res.status}`);
    if (res.status === 428) assertError(res, 428, 'challenge_required');
    else assertError(res, 400, 'validation_error');
  }
  assert.equal(await invoiceCount(api, shopId), 0);

  const late = await solved(app, shopId);
  clock.advance(21 * MINUTE);
  const expired = await post(app, url, buyBody, '203.0.113.9', late);
  assertError(expired, 428, 'challenge_required');
  assert.deepEqual(expired.body.errors, ['X-Altcha: is expired']);
  assert.equal(await invoiceCount(api, shopId), 0);
});

test("'always': tickets and sign-in codes need a solution too; nothing is opened or mailed without one", async (t) => {
  const { app, api, shopId } = await setup(t, { challenge: 'always' });
  const ticket = { email: 'buyer@example.com', title: 'Help', message: 'Where is my order?' };
  assertError(await post(app, `/v2/public/shops/${shopId}/tickets`, ticket), 428, 'challenge_required');
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets`)).totalCount, 0);
  const opened = await post(
    app,
    `/v2/public/shops/${shopId}/tickets`,
    ticket,
    '203.0.113.7',
    await solved(app, shopId),
  );
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets`)).totalCount, 1);

  const signIn = { email: 'buyer@example.com' };
  const mailsBefore = await app.ctx.db.selectFrom('mail_outbox').select('id').where('shop_id', '=', shopId).execute();
  assertError(await post(app, `/v2/public/shops/${shopId}/customer/sign-in`, signIn), 428, 'challenge_required');
  const mailsAfter = await app.ctx.db.selectFrom('mail_outbox').select('id').where('shop_id', '=', shopId).execute();
  assert.equal(mailsAfter.length, mailsBefore.length, 'no code was mailed');
  const sent = await post(
    app,
    `/v2/public/shops/${shopId}/customer/sign-in`,
    signIn,
    '203.0.113.7',
    await solved(app, shopId),
  );
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
});

test("'suspicious': a client past the threshold in an hour is asked; other clients are not; an IPv6 /64 is one client", async (t) => {
  const { app, api, clock, shopId, buyBody } = await setup(t, { challenge: 'suspicious', challengeThreshold: 2 });
  const url = `/v2/public/shops/${shopId}/invoices`;
  const ticketUrl = `/v2/public/shops/${shopId}/tickets`;
  const ticket = { email: 'buyer@example.com', title: 'Help', message: 'Hello' };

  // A checkout and a ticket are two actions of the client: the third needs a challenge.
  assert.equal((await post(app, url, buyBody, '198.51.100.1')).status, 200);
  assert.equal((await post(app, ticketUrl, ticket, '198.51.100.1')).status, 200);
  assertError(await post(app, url, buyBody, '198.51.100.1'), 428, 'challenge_required');
  // Solved, it goes through (and counts, so the next one is asked again).
  assert.equal((await post(app, url, buyBody, '198.51.100.1', await solved(app, shopId))).status, 200);
  assertError(await post(app, ticketUrl, ticket, '198.51.100.1'), 428, 'challenge_required');

  // Another address is another client.
  assert.equal((await post(app, url, buyBody, '198.51.100.2')).status, 200);

  // Fresh addresses of one IPv6 /64 are one client.
  assert.equal((await post(app, url, buyBody, '2001:db8:5:6::1')).status, 200);
  assert.equal((await post(app, url, buyBody, '2001:db8:5:6::2')).status, 200);
  assertError(await post(app, url, buyBody, '2001:db8:5:6:ffff::3'), 428, 'challenge_required');

  // An hour later the first client's actions no longer count.
  clock.advance(61 * MINUTE);
  assert.equal((await post(app, url, buyBody, '198.51.100.1')).status, 200);
  assert.equal(await invoiceCount(api, shopId), 6);

  // The hourly sweep deletes the actions older than an hour.
  const { sweepChallenges } = await import('../../src/modules/challenge/index.js');
  const swept = await sweepChallenges(app.ctx, clock.now());
  assert.ok(swept >= 7, `swept ${swept}`);
  const left = await app.ctx.db.selectFrom('challenge_actions').select('client_net').execute();
  assert.deepEqual(
    left.map((r) => r.client_net),
    ['198.51.100.1'],
  );
});

test("'off' never asks; the default is 'suspicious' with a threshold of 5", async (t) => {
  const { app, shopId, buyBody, api } = await setup(t, { challenge: 'off' });
  for (let i = 0; i < 8; i++)
    assert.equal((await post(app, `/v2/public/shops/${shopId}/invoices`, buyBody, '198.51.100.3')).status, 200);
  const fresh = await createShop(api, 'Defaults', { protection: 'defaults' });
  const { protection } = assertOk(await api.get(`/self/${fresh.id}/settings`));
  assert.equal(protection.challenge, 'suspicious');
  assert.equal(protection.challengeThreshold, 5);
});

test('one solution sent twice at once opens exactly one checkout', async (t) => {
  const { app, api, shopId, buyBody } = await setup(t, { challenge: 'always' });
  const altcha = await solved(app, shopId);
  const url = `/v2/public/shops/${shopId}/invoices`;
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) => post(app, url, buyBody, `198.51.100.${10 + i}`, altcha)),
  );
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 428, 428, 428, 428, 428]);
  assert.equal(await invoiceCount(api, shopId), 1);
});

test('a 428 is not kept under an Idempotency-Key: the retry with the solution places the order', async (t) => {
  const { app, api, shopId, buyBody } = await setup(t, { challenge: 'always' });
  const url = `/v2/public/shops/${shopId}/invoices`;
  const send = (altcha?: string) =>
    app.inject({
      method: 'POST',
      url,
      remoteAddress: '127.0.0.1',
      headers: {
        'idempotency-key': 'order-1',
        'x-forwarded-for': '198.51.100.20',
        ...(altcha ? { 'x-altcha': altcha } : {}),
      },
      payload: buyBody,
    });
  assert.equal((await send()).statusCode, 428);
  const placed = await send(await solved(app, shopId));
  assert.equal(placed.statusCode, 200, placed.body);
  // The replay answers the stored order, though its solution is spent now.
  const replay = await send();
  assert.equal(replay.statusCode, 200);
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.equal(replay.json().data.id, placed.json().data.id);
  assert.equal(await invoiceCount(api, shopId), 1);
});

test('settings: challenge and challengeThreshold are validated; another account gets 404', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const other = await owner(app);
  const shop = await createShop(api, 'S');
  const url = `/self/${shop.id}/settings/protection`;
  for (const body of [
    { challenge: 'sometimes' },
    { challengeThreshold: 0 },
    { challengeThreshold: 2.5 },
    { challenge: null },
  ])
    assertError(await api.put(url, body), 400, 'validation_error');
  assertError(await other.put(url, { challenge: 'always' }), 404, 'not_found');
  assert.equal(assertOk(await api.get(`/self/${shop.id}/settings`)).protection.challenge, 'off');
  const saved = assertOk(await api.put(url, { challenge: 'always', challengeThreshold: 9 }));
  assert.equal(saved.challenge, 'always');
  assert.equal(saved.challengeThreshold, 9);
});

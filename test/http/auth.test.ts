import assert from 'node:assert/strict';
import { test } from 'node:test';
import { revokeApiKey } from '../../src/modules/accounts/service.js';
import { build, client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import {
  concretePath,
  createFixture,
  type Fixture,
  send,
  shopOperations,
  snapshot,
} from '../helpers/owner-operations.js';
import { buildWithProviders } from '../helpers/payment-providers.js';

test('a missing or unknown key is a 401 on every owner path', async (t) => {
  // Every path is tried with an unknown key from one address: far more than the failed-key limit
  // allows (rate-limit.test.ts tests that limit).
  const app = await build(t, { RATE_LIMIT_AUTH_FAILURES_MAX: '0' });
  const api = await owner(app);
  const shop = await createShop(api);
  const fixture = await createFixture(api, shop.id);
  const ops = await shopOperations(app);
  assert.ok(ops.length >= 34);
  const before = await snapshot(api, ops, fixture);
  for (const op of ops) {
    const none = await app.inject({ method: op.method as 'GET', url: concretePath(op, fixture) });
    assertError({ status: none.statusCode, body: none.json() }, 401, 'unauthorized');
    assertError(await send(client(app, 'shopd_not-a-real-key'), op, fixture), 401, 'unauthorized');
  }
  for (const [method, url] of [
    ['GET', '/self/shops'],
    ['POST', '/self/shops'],
  ]) {
    assertError(await client(app, 'nope').request(method!, url!, { name: 'x' }), 401, 'unauthorized');
  }
  assert.deepEqual(await snapshot(api, ops, fixture), before);
});

test('the key is accepted with Bearer and bare, and stops working once revoked', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const bare = await app.inject({ method: 'GET', url: '/self/shops', headers: { authorization: api.key } });
  assert.equal(bare.statusCode, 200);
  const lower = await app.inject({
    method: 'GET',
    url: '/self/shops',
    headers: { authorization: `bearer ${api.key}` },
  });
  assert.equal(lower.statusCode, 200);
  assertOk(await api.get('/self/shops'));

  const keyRow = await app.db.kysely
    .selectFrom('api_keys')
    .select('id')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  await revokeApiKey(app.ctx, keyRow.id);
  assertError(await api.get('/self/shops'), 401, 'unauthorized');
});

test("another account's key gets 404 on every shop path and changes nothing", async (t) => {
  const app = await build(t);
  const alice = await owner(app);
  const mallory = await owner(app);
  const shop = await createShop(alice, 'Alice Keys');
  const fixture = await createFixture(alice, shop.id);
  // Mallory's own shop and objects, whose ids she might try to mix in.
  const malloryShop = await createShop(mallory, 'Mallory Keys');
  const malloryFixture = await createFixture(mallory, malloryShop.id);
  const ops = await shopOperations(app);
  const before = await snapshot(alice, ops, fixture);
  const missingShop: Fixture = { ...fixture, shopId: 999999 };
  for (const op of ops) {
    const res = await send(mallory, op, fixture);
    assertError(res, 404, 'not_found');
    // The same answer as for a shop that does not exist at all.
    assert.deepEqual((await send(mallory, op, missingShop)).body, res.body, `${op.method} ${op.path}`);
    // Alice's objects named under Mallory's own shop are not found either.
    if (/\{(?!shopId)\w+\}/.test(op.path)) {
      const crossed = { ...fixture, shopId: malloryShop.id };
      assertError(await send(mallory, op, crossed), 404, 'not_found');
    }
  }
  assert.deepEqual(await snapshot(alice, ops, fixture), before);
  assert.ok(malloryFixture.productId > 0);
});

test('a read-only key reads but gets 403 on every write, which changes nothing', async (t) => {
  const app = await build(t);
  const email = 'ro@example.com';
  const writer = await owner(app, { email });
  const reader = await owner(app, { email, scopes: ['read'] });
  const shop = await createShop(writer);
  const fixture = await createFixture(writer, shop.id);
  const ops = await shopOperations(app);
  const before = await snapshot(writer, ops, fixture);
  for (const op of ops) {
    const res = await send(reader, op, fixture);
    if (op.method === 'GET' && op.sample.status) assert.equal(res.status, op.sample.status);
    else if (op.method === 'GET') assertOk(res);
    else assertError(res, 403, 'forbidden');
  }
  assertError(await reader.post('/self/shops', { name: 'nope' }), 403, 'forbidden');
  assert.deepEqual(await snapshot(writer, ops, fixture), before);
  assert.equal(assertOk(await writer.get('/self/shops')).length, 1);

  const writeOnly = await owner(app, { email, scopes: ['write'] });
  assertError(await writeOnly.get('/self/shops'), 403, 'forbidden');
});

test('every owner operation works for the owning account', async (t) => {
  // Against the payment providers' double: a Stripe key is checked with Stripe when it is stored.
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const fixture = await createFixture(api, shop.id);
  for (const op of await shopOperations(app)) {
    const res = await send(api, op, fixture);
    // 201: a file stored (an upload, or the last chunk of a resumable one).
    const created = op.path.startsWith('/self/{shopId}/files') && res.status === 201;
    assert.ok(
      res.status === (op.sample.status ?? 200) || created,
      `${op.method} ${op.path}: ${res.status} ${JSON.stringify(res.body)}`,
    );
    // A deletion consumes the fixture's object: make a fresh set for what follows.
    if (op.method === 'DELETE' || op.path.endsWith('/delete'))
      Object.assign(fixture, await createFixture(api, shop.id));
  }
});

test('bad ids in the path are a 400, never a 404 or 500', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  for (const id of [
    'abc',
    '0',
    '-1',
    '1.5',
    '2147483648',
    '99999999999999999999',
    '%20',
    '0x1',
    '1e0',
    '1.0',
    '+1',
    '%201',
  ]) {
    const res = await api.get(`/self/${id}/settings`);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^shopId: /);
  }
});

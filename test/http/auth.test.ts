import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { concretePath, shopOperations } from '../helpers/owner-operations.js';
import { revokeApiKey } from '../../src/modules/accounts/service.js';

test('a missing or unknown key is a 401 on every owner path', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const ops = [{ method: 'GET', path: '/self/shops' }, { method: 'POST', path: '/self/shops', body: { name: 'x' } }, ...(await shopOperations(app))];
  assert.ok(ops.length >= 22);
  for (const op of ops) {
    const url = concretePath(op, shop.id);
    const none = await app.inject({ method: op.method as 'GET', url, ...(op.body ? { payload: op.body as object } : {}) });
    assertError({ status: none.statusCode, body: none.json() }, 401, 'unauthorized');
    const unknown = await client(app, 'shopd_not-a-real-key').request(op.method, url, op.body);
    assertError(unknown, 401, 'unauthorized');
  }
});

test('the key is accepted with Bearer and bare, and stops working once revoked', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const bare = await app.inject({ method: 'GET', url: '/self/shops', headers: { authorization: api.key } });
  assert.equal(bare.statusCode, 200);
  const lower = await app.inject({ method: 'GET', url: '/self/shops', headers: { authorization: `bearer ${api.key}` } });
  assert.equal(lower.statusCode, 200);
  assertOk(await api.get('/self/shops'));

  const keyRow = await app.db.kysely.selectFrom('api_keys').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  await revokeApiKey(app.db.kysely, keyRow.id);
  assertError(await api.get('/self/shops'), 401, 'unauthorized');
});

test("another account's key gets 404 on every shop path and changes nothing", async (t) => {
  const app = await build(t);
  const alice = await owner(app);
  const mallory = await owner(app);
  const shop = await createShop(alice, 'Alice Keys');
  await createShop(mallory, 'Mallory Keys');
  const before = assertOk(await alice.get(`/self/${shop.id}/settings`));
  const ops = await shopOperations(app);
  for (const op of ops) {
    const res = await mallory.request(op.method, concretePath(op, shop.id), op.body);
    assertError(res, 404, 'not_found');
    // The same answer as for a shop that does not exist at all.
    const missing = await mallory.request(op.method, concretePath(op, 999999), op.body);
    assert.deepEqual(missing.body, res.body, `${op.method} ${op.path}`);
  }
  assert.deepEqual(assertOk(await alice.get(`/self/${shop.id}/settings`)), before);
});

test('a read-only key reads but gets 403 on every write, which changes nothing', async (t) => {
  const app = await build(t);
  const email = 'ro@example.com';
  const writer = await owner(app, { email });
  const reader = await owner(app, { email, scopes: ['read'] });
  const shop = await createShop(writer);
  assertOk(await reader.get('/self/shops'));
  assertOk(await reader.get(`/self/${shop.id}/settings`));
  const before = assertOk(await writer.get(`/self/${shop.id}/settings`));
  assertError(await reader.post('/self/shops', { name: 'nope' }), 403, 'forbidden');
  for (const op of (await shopOperations(app)).filter((o) => o.method !== 'GET')) {
    assertError(await reader.request(op.method, concretePath(op, shop.id), op.body), 403, 'forbidden');
  }
  assert.deepEqual(assertOk(await writer.get(`/self/${shop.id}/settings`)), before);
  assert.equal(assertOk(await writer.get('/self/shops')).length, 1);

  const writeOnly = await owner(app, { email, scopes: ['write'] });
  assertError(await writeOnly.get('/self/shops'), 403, 'forbidden');
});

test('every owner write operation works for the owning account', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  for (const op of await shopOperations(app)) {
    assertOk(await api.request(op.method, concretePath(op, shop.id), op.body));
  }
});

test('bad ids in the path are a 400, never a 404 or 500', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999999999999', '%20']) {
    const res = await api.get(`/self/${id}/settings`);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^shopId: /);
  }
});

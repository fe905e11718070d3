import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk } from '../helpers/factories.js';
import { IDEMPOTENCY_TTL_MS, sweepIdempotencyKeys } from '../../src/http/idempotency.js';

test('a retry with the same Idempotency-Key and body answers the first response and acts once', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const headers = { 'idempotency-key': 'create-shop-1' };
  const first = await api.post('/self/shops', { name: 'Once' }, headers);
  const retry = await api.post('/self/shops', { name: 'Once' }, headers);
  assert.equal(retry.status, 200);
  assert.deepEqual(retry.body, first.body);
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.equal(first.headers['idempotent-replayed'], undefined);
  assert.equal(assertOk(await api.get('/self/shops')).length, 1);
});

test('the same key with another body is a 409 and acts not at all', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const headers = { 'idempotency-key': 'k-2' };
  assertOk(await api.post('/self/shops', { name: 'First' }, headers));
  const res = await api.post('/self/shops', { name: 'Second' }, headers);
  assertError(res, 409, 'conflict');
  assert.equal(assertOk(await api.get('/self/shops')).length, 1);
});

test('parallel requests with one key act once: the others are replayed or told it is in progress', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const headers = { 'idempotency-key': 'burst' };
  const results = await Promise.all(Array.from({ length: 8 }, () => api.post('/self/shops', { name: 'Burst' }, headers)));
  for (const r of results) assert.ok(r.status === 200 || (r.status === 409 && r.body.code === 'conflict'), JSON.stringify(r.body));
  assert.equal(assertOk(await api.get('/self/shops')).length, 1);
});

test('keys are scoped to the account, and other accounts may reuse them', async (t) => {
  const app = await build(t);
  const alice = await owner(app);
  const bob = await owner(app);
  const headers = { 'idempotency-key': 'shared' };
  const a = assertOk(await alice.post('/self/shops', { name: 'Same' }, headers));
  const b = assertOk(await bob.post('/self/shops', { name: 'Same' }, headers));
  assert.notEqual(a.id, b.id);
});

test('a refused request is remembered too, and a key past 24 hours acts again', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const headers = { 'idempotency-key': 'old' };
  assertOk(await api.post('/self/shops', { name: 'Old' }, headers));
  await app.db.kysely.updateTable('idempotency_keys').set({ created_at: Date.now() - IDEMPOTENCY_TTL_MS - 1000 }).execute();
  assert.equal(await sweepIdempotencyKeys(app.db.kysely), 1);
  assertOk(await api.post('/self/shops', { name: 'Old' }, headers));
  assert.equal(assertOk(await api.get('/self/shops')).length, 2);

  const tooLong = await api.post('/self/shops', { name: 'x' }, { 'idempotency-key': 'k'.repeat(256) });
  assertError(tooLong, 400, 'validation_error');
});

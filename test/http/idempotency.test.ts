import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { claimLeaseMs, IDEMPOTENCY_TTL_MS, sweepIdempotencyKeys } from '../../src/http/idempotency.js';
import { MAX_ORDER_PARTS } from '../../src/schemas/rules.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { httpsServer } from '../helpers/https-endpoint.js';

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
  const results = await Promise.all(
    Array.from({ length: 8 }, () => api.post('/self/shops', { name: 'Burst' }, headers)),
  );
  for (const r of results)
    assert.ok(r.status === 200 || (r.status === 409 && r.body.code === 'conflict'), JSON.stringify(r.body));
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
  await app.db.kysely
    .updateTable('idempotency_keys')
    .set({ created_at: Date.now() - IDEMPOTENCY_TTL_MS - 1000 })
    .execute();
  assert.equal(await sweepIdempotencyKeys(app.db.kysely), 1);
  assertOk(await api.post('/self/shops', { name: 'Old' }, headers));
  assert.equal(assertOk(await api.get('/self/shops')).length, 2);

  const tooLong = await api.post('/self/shops', { name: 'x' }, { 'idempotency-key': 'k'.repeat(256) });
  assertError(tooLong, 400, 'validation_error');
});

/** Leaves the key's row as a process that died mid-request leaves it: claimed, no answer, claimed `ageMs` ago. */
async function crashState(app: FastifyInstance, key: string, ageMs: number) {
  const changed = await app.db.kysely
    .updateTable('idempotency_keys')
    .set({ status_code: null, response_body: null, created_at: Date.now() - ageMs })
    .where('key', '=', key)
    .executeTakeFirst();
  assert.equal(Number(changed.numUpdatedRows), 1);
}

test('the claim lease outlasts the longest request: every part of an order waiting its full delivery timeout', async (t) => {
  const app = await build(t, { DYNAMIC_DELIVERY_TIMEOUT_MS: '120000' });
  assert.ok(claimLeaseMs(app.config) > MAX_ORDER_PARTS * 120_000);
  assert.ok(claimLeaseMs(app.config) < IDEMPOTENCY_TTL_MS);
  assert.ok(
    claimLeaseMs({ invoices: { dynamicTimeoutMs: 10_000, expiryIntervalMs: 1 } }) <= 10 * 60_000,
    'minutes, not a day, by default',
  );
});

test('a key whose request died before answering is free again once its lease lapsed; before that it is in progress', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const headers = { 'idempotency-key': 'crash' };
  const lease = claimLeaseMs(app.config);
  assertOk(await api.post('/self/shops', { name: 'Crash' }, headers));

  await crashState(app, 'crash', 0);
  const running = await api.post('/self/shops', { name: 'Crash' }, headers);
  assertError(running, 409, 'conflict');
  assert.equal(
    running.headers['retry-after'],
    '1',
    'a running request usually answers soon: retry in a second, not after the lease',
  );
  await crashState(app, 'crash', lease - 60_000);
  assertError(await api.post('/self/shops', { name: 'Crash' }, headers), 409, 'conflict');
  assert.equal(assertOk(await api.get('/self/shops')).length, 1);

  await crashState(app, 'crash', lease + 1000);
  const retried = await api.post('/self/shops', { name: 'Crash' }, headers);
  assert.equal(retried.status, 200);
  assert.equal(retried.headers['idempotent-replayed'], undefined, 'the retry ran');
  assert.equal(assertOk(await api.get('/self/shops')).length, 2);
  const replay = await api.post('/self/shops', { name: 'Crash' }, headers);
  assert.equal(replay.headers['idempotent-replayed'], 'true', 'and its answer was recorded');
  assert.deepEqual(replay.body, retried.body);
});

test('two retries at once after a crash: one runs, the other is told it is in progress', async (t) => {
  const app = await build(t, { DYNAMIC_DELIVERY_TIMEOUT_MS: '60000' });
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  // The delivery endpoint fails the first call, then holds calls until the test lets them go.
  let calls = 0;
  const held: ServerResponse[] = [];
  let reached!: () => void;
  const winnerReached = new Promise<void>((resolve) => (reached = resolve));
  const { url } = await httpsServer(t, (_body, _req, res) => {
    if (++calls === 1) return void res.writeHead(500).end('down');
    held.push(res);
    reached();
  });
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Account',
      description: 'd',
      variants: [
        { title: 'One', priceDetails: { amount: 3 }, productType: 'dynamic', asDynamic: { externalUrl: url } },
      ],
    }),
  );
  const invoice = assertOk(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      customerEmail: 'twice@example.com',
      gateway: 'tipjar',
      parts: [{ productId: product.id, productVariantId: product.variants[0].id, quantity: 1 }],
    }),
  );
  const process = `/self/${shopId}/invoices/${invoice.id}/process`;
  const headers = { 'idempotency-key': 'process-once' };
  assertError(await api.post(process, undefined, headers), 422, 'unprocessable');
  await crashState(app, 'process-once', claimLeaseMs(app.config) + 1000);

  const both = [api.post(process, undefined, headers), api.post(process, undefined, headers)];
  // The winner waits on the held endpoint, so the first to answer is the loser.
  const first = await Promise.race(both.map((reply, i) => reply.then((r) => ({ i, r }))));
  assertError(first.r, 409, 'conflict');
  assert.match(first.r.body.errors[0], /in progress/);
  const other = both[1 - first.i]!;
  await Promise.race([winnerReached, other]);
  for (const res of held) res.writeHead(200).end('ACCOUNT-1');
  assert.equal(assertOk(await other).status, 'completed');
  assert.equal(calls, 2, 'the delivery was asked once by the retries');
  assert.equal(held.length, 1);
});

import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { CLAIM_LEASE_MS, IDEMPOTENCY_TTL_MS, sweepIdempotencyKeys } from '../../src/http/idempotency.js';
import { build, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
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
  const clock = new TestClock();
  const app = await build(t, {}, { clock });
  const api = await owner(app);
  const headers = { 'idempotency-key': 'old' };
  assertOk(await api.post('/self/shops', { name: 'Old' }, headers));
  assert.equal(await sweepIdempotencyKeys(app.db.kysely, clock.now()), 0, 'a key within its 24 hours stays');
  clock.advance(IDEMPOTENCY_TTL_MS + 1000);
  assert.equal(await sweepIdempotencyKeys(app.db.kysely, clock.now()), 1);
  assertOk(await api.post('/self/shops', { name: 'Old' }, headers));
  assert.equal(assertOk(await api.get('/self/shops')).length, 2);

  const tooLong = await api.post('/self/shops', { name: 'x' }, { 'idempotency-key': 'k'.repeat(256) });
  assertError(tooLong, 400, 'validation_error');
});

/**
 * Leaves the key's row as a process that died mid-request leaves it: claimed, no answer, its lease
 * ending `leaseMs` from now (negative: over). `committed`: the work had committed (the claim was
 * marked in its transaction) or not (nothing of it was kept).
 */
async function crashState(app: FastifyInstance, key: string, leaseMs: number, committed: boolean) {
  const changed = await app.db.kysely
    .updateTable('idempotency_keys')
    .set({
      status_code: null,
      response_body: null,
      lease_until: app.ctx.clock.now() + leaseMs,
      ...(committed ? {} : { committed_at: null, result_ref: null }),
    })
    .where('key', '=', key)
    .executeTakeFirst();
  assert.equal(Number(changed.numUpdatedRows), 1);
}

test('the work a key guards marks its claim in its own transaction, with what it made', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = assertOk(await api.post('/self/shops', { name: 'Marked' }, { 'idempotency-key': 'marked' }));
  const row = await app.db.kysely
    .selectFrom('idempotency_keys')
    .select(['committed_at', 'result_ref', 'status_code'])
    .where('key', '=', 'marked')
    .executeTakeFirstOrThrow();
  assert.ok(row.committed_at !== null);
  assert.equal(row.result_ref, String(shop.id));
  assert.equal(row.status_code, 200);
});

test('a key whose request died before its work committed is free again once its lease is over; before that it is in progress', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const headers = { 'idempotency-key': 'crash' };
  assertOk(await api.post('/self/shops', { name: 'Crash' }, headers));
  // As if that shop had never committed: the row is gone with the work, the claim was left.
  await crashState(app, 'crash', CLAIM_LEASE_MS, false);
  const running = await api.post('/self/shops', { name: 'Crash' }, headers);
  assertError(running, 409, 'conflict');
  assert.equal(running.headers['retry-after'], '1', 'a running request usually answers soon: retry in a second');

  await crashState(app, 'crash', -1, false);
  const retried = await api.post('/self/shops', { name: 'Crash' }, headers);
  assert.equal(retried.status, 200);
  assert.equal(retried.headers['idempotent-replayed'], undefined, 'the retry ran');
  assert.equal(assertOk(await api.get('/self/shops')).length, 2);
  const replay = await api.post('/self/shops', { name: 'Crash' }, headers);
  assert.equal(replay.headers['idempotent-replayed'], 'true', 'and its answer was recorded');
  assert.deepEqual(replay.body, retried.body);
});

test('a key whose request died after its work committed, before answering: the retry is answered what it made, never run again', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const headers = { 'idempotency-key': 'late-crash' };
  const first = assertOk(await api.post('/self/shops', { name: 'Late' }, headers));
  await crashState(app, 'late-crash', CLAIM_LEASE_MS, true);
  assertError(await api.post('/self/shops', { name: 'Late' }, headers), 409, 'conflict');

  await crashState(app, 'late-crash', -1, true);
  const retried = await api.post('/self/shops', { name: 'Late' }, headers);
  assert.equal(retried.status, 200);
  assert.equal(retried.headers['idempotent-replayed'], 'true');
  assert.equal(retried.body.data.id, first.id);
  assert.equal(assertOk(await api.get('/self/shops')).length, 1, 'one shop');
  const again = await api.post('/self/shops', { name: 'Late' }, headers);
  assert.deepEqual(again.body, retried.body, 'the replayed answer is kept');
});

test('a checkout whose process died after placing the order: the retry answers that invoice; one order, one key sold', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  const order = {
    customerEmail: 'retry@example.com',
    gateway: 'tipjar',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
  };
  const headers = { 'idempotency-key': 'checkout-crash' };
  const placed = assertOk(await api.post(`/v2/public/shops/${shopId}/invoices`, order, headers));
  await crashState(app, 'checkout-crash', -1, true);
  const retried = await api.post(`/v2/public/shops/${shopId}/invoices`, order, headers);
  assert.equal(retried.status, 200);
  assert.equal(retried.headers['idempotent-replayed'], 'true');
  assert.equal(retried.body.data.id, placed.id);
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 1);
  const product = assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`));
  assert.equal(product.variants[0].stock, 4);
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
  await crashState(app, 'process-once', -1, false);

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

test('a server error after the work committed is not a licence to act again: the retry is answered what it made', async (t) => {
  // The crypto provider fails after the order was placed: a 502, and the order is cancelled.
  const provider = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}');
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => provider.close(() => resolve())));
  const app = await build(t, {
    PAYMENTS_CRYPTO_API_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}`,
  });
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cryptocommerce`, {
      enabled: true,
      apiKey: 'test-api-key',
      webhookSecret: 'test-secret',
    }),
  );
  const order = {
    customerEmail: 'fail@example.com',
    gateway: 'cryptocommerce',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
  };
  const headers = { 'idempotency-key': 'provider-down' };
  assertError(await api.post(`/v2/public/shops/${shopId}/invoices`, order, headers), 502, 'payment_provider_error');
  const retried = await api.post(`/v2/public/shops/${shopId}/invoices`, order, headers);
  assert.equal(retried.status, 200);
  assert.equal(retried.headers['idempotent-replayed'], 'true');
  assert.equal(retried.body.data.status, 'cancelled');
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 1, 'one order, not two');
});

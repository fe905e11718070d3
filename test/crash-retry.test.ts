import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { openDatabase } from '../src/db/database.js';
import { onEnd, processEnv } from './helpers/build.js';
import { httpsServer } from './helpers/https-endpoint.js';
import { startServer } from './helpers/server-process.js';
import { waitUntil } from './helpers/wait.js';

// kill -9 in the middle of a request that carries an Idempotency-Key, then a retry against the
// restarted server (issue 33, D3): the retry gets the first request's result or runs it once,
// never twice. The server is the compiled one in its own process, on either engine.

/** A local HTTP server that holds every request until the test answers it; closed when the test ends. */
async function holdingServer(t: TestContext) {
  const held: { path: string; res: ServerResponse }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    held.push({ path: req.url ?? '', res });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held };
}

async function crashableServer(t: TestContext, env: Record<string, string>) {
  const { config, env: databaseEnv } = await processEnv(t);
  const allEnv = { ...databaseEnv, ALLOW_PRIVATE_WEBHOOKS: 'true', ...env };
  const first = await startServer(allEnv);
  onEnd(t, () => first.child.kill('SIGKILL'));
  const key = /First API key \(.*\), shown once: (\S+)/.exec(first.output())![1]!;
  let url = first.url;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: key, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(method === 'GET' ? {} : { body: body === undefined ? '' : JSON.stringify(body) }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  // The test's own connection to the database: to let a claim's lease run out without waiting for it.
  const db = openDatabase(config.database);
  onEnd(t, () => db.destroy());
  return {
    call,
    /** kill -9, then a new server on the same database. */
    async crashAndRestart() {
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      const second = await startServer(allEnv);
      onEnd(t, () => second.child.kill('SIGKILL'));
      url = second.url;
    },
    /**
     * The dead request's claim still within its lease, however long the restart took: on a loaded
     * machine a restart can take longer than CLAIM_LEASE_MS, and the lease would be over by itself.
     */
    async leaseHeld(key: string) {
      await db.kysely
        .updateTable('idempotency_keys')
        .set({ lease_until: Date.now() + 600_000 })
        .where('key', '=', key)
        .execute();
    },
    /** What CLAIM_LEASE_MS of time does to the dead request's claim. */
    async leaseOver(key: string) {
      await db.kysely
        .updateTable('idempotency_keys')
        .set({ lease_until: Date.now() - 1 })
        .where('key', '=', key)
        .execute();
    },
  };
}

async function shopSelling(
  call: Awaited<ReturnType<typeof crashableServer>>['call'],
  variant: Record<string, unknown>,
  gateway: { name: string; settings: Record<string, unknown> },
) {
  const shop = (await call('POST', '/self/shops', { name: 'Crashing' })).body.data;
  assert.equal((await call('PUT', `/self/${shop.id}/settings/payments/${gateway.name}`, gateway.settings)).status, 200);
  const product = (
    await call('POST', `/self/${shop.id}/v2/products`, {
      title: 'Goods',
      description: 'd',
      variants: [{ title: 'One', priceDetails: { amount: 4 }, ...variant }],
    })
  ).body.data;
  return {
    shopId: shop.id as number,
    order: {
      customerEmail: 'crash@example.com',
      gateway: gateway.name,
      parts: [{ productId: product.id, productVariantId: product.variants[0].id, quantity: 1 }],
    },
    productId: product.id as number,
  };
}

test('killed after the checkout committed, before it answered: the retry answers that order; one order, one key reserved', async (t) => {
  const provider = await holdingServer(t);
  const server = await crashableServer(t, { PAYMENTS_CRYPTO_API_URL: provider.url });
  const { shopId, order, productId } = await shopSelling(
    server.call,
    { productType: 'serials', asSerials: { serials: ['KEY-1', 'KEY-2', 'KEY-3'] } },
    { name: 'cryptocommerce', settings: { enabled: true, apiKey: 'test-api-key', webhookSecret: 'test-secret' } },
  );
  const headers = { 'idempotency-key': 'checkout-then-crash' };
  // The order commits, then shopd asks the crypto provider for its payment page: held, and killed there.
  const lost = server.call('POST', `/v2/public/shops/${shopId}/invoices`, order, headers).catch((err: Error) => err);
  await waitUntil(() => provider.held.length === 1, 'the provider to be asked for a payment page');
  assert.equal(provider.held[0]!.path, '/charges');
  await server.crashAndRestart();
  assert.ok((await lost) instanceof Error, 'the first request got no answer');

  await server.leaseHeld('checkout-then-crash');
  const early = await server.call('POST', `/v2/public/shops/${shopId}/invoices`, order, headers);
  assert.equal(early.status, 409, 'within the lease the first request may still be running');
  assert.equal(early.headers.get('retry-after'), '1');

  await server.leaseOver('checkout-then-crash');
  const retried = await server.call('POST', `/v2/public/shops/${shopId}/invoices`, order, headers);
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  assert.equal(retried.headers.get('idempotent-replayed'), 'true');
  assert.equal(retried.body.data.status, 'pending');
  const invoices = (await server.call('GET', `/self/${shopId}/invoices`)).body.data;
  assert.equal(invoices.totalCount, 1, 'one order');
  assert.equal(invoices.items[0].id, retried.body.data.id);
  const product = (await server.call('GET', `/self/${shopId}/v2/products/${productId}`)).body.data;
  assert.equal(product.variants[0].stock, 2, 'one key reserved');
  assert.equal(provider.held.length, 1, 'the retry asked the provider nothing');
  const again = await server.call('POST', `/v2/public/shops/${shopId}/invoices`, order, headers);
  assert.deepEqual(again.body, retried.body, 'the replayed answer is kept');
});

test('killed before the completion committed: after the lease the retry runs it, once', async (t) => {
  const delivery: ServerResponse[] = [];
  const { url } = await httpsServer(t, (_body, _req, res) => void delivery.push(res));
  const server = await crashableServer(t, {});
  const { shopId, order } = await shopSelling(
    server.call,
    { productType: 'dynamic', asDynamic: { externalUrl: url } },
    { name: 'tipjar', settings: { enabled: true, handle: 'jar' } },
  );
  const invoice = (await server.call('POST', `/v2/public/shops/${shopId}/invoices`, order)).body.data;
  const process = `/self/${shopId}/invoices/${invoice.id}/process`;
  const headers = { 'idempotency-key': 'process-then-crash' };
  // Completing asks the delivery endpoint first, before its transaction: killed while it waits.
  const lost = server.call('POST', process, undefined, headers).catch((err: Error) => err);
  await waitUntil(() => delivery.length === 1, 'the delivery endpoint to be asked');
  await server.crashAndRestart();
  assert.ok((await lost) instanceof Error);

  await server.leaseOver('process-then-crash');
  const retried = server.call('POST', process, undefined, headers);
  await waitUntil(() => delivery.length === 2, 'the retry to ask the endpoint again');
  delivery[1]!.writeHead(200).end('ACCOUNT-XYZ');
  const done = await retried;
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.headers.get('idempotent-replayed'), null, 'it ran: nothing of the first had committed');
  assert.equal(done.body.data.status, 'completed');
  assert.deepEqual(done.body.data.parts[0].deliverables, ['ACCOUNT-XYZ']);
  const replay = await server.call('POST', process, undefined, headers);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(delivery.length, 2, 'asked once per run: the replay asked nothing');
});

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { onEnd, processEnv } from './helpers/build.js';
import { httpsServer } from './helpers/https-endpoint.js';
import { type ServerProcess, startServer } from './helpers/server-process.js';
import { waitUntil } from './helpers/wait.js';

// Stopping the server (SIGTERM, as systemd, Docker and Kubernetes do): /ready turns 503 first while
// everything else is still served, then the listener closes, the requests in flight finish, and the
// process exits. Nothing here waits on a clock: each step waits for what the server did.

async function started(t: import('node:test').TestContext, env: Record<string, string>) {
  const { env: databaseEnv } = await processEnv(t);
  const server = await startServer({ ...databaseEnv, ALLOW_PRIVATE_WEBHOOKS: 'true', ...env });
  onEnd(t, () => server.child.kill('SIGKILL'));
  const key = /First API key \(.*\), shown once: (\S+)/.exec(server.output())![1]!;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { server, call };
}

/** A shop selling one product delivered from `url` (a dynamic delivery), and a pending order of it. */
async function pendingDynamicOrder(call: Awaited<ReturnType<typeof started>>['call'], url: string) {
  const shop = (await call('POST', '/self/shops', { name: 'Stopping' })).body.data;
  assert.equal(
    (await call('PUT', `/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'j' })).status,
    200,
  );
  const product = (
    await call('POST', `/self/${shop.id}/v2/products`, {
      title: 'Account',
      description: 'd',
      variants: [
        { title: 'One', priceDetails: { amount: 3 }, productType: 'dynamic', asDynamic: { externalUrl: url } },
      ],
    })
  ).body.data;
  const order = {
    customerEmail: 'stop@example.com',
    gateway: 'tipjar',
    parts: [{ productId: product.id, productVariantId: product.variants[0].id, quantity: 1 }],
  };
  const invoice = (await call('POST', `/v2/public/shops/${shop.id}/invoices`, order)).body.data;
  return { shopId: shop.id as number, invoiceId: invoice.id as string, order };
}

/** Whether a request to the server gets no answer or a 503: it is closing, or closed. */
async function refusedBy(server: ServerProcess, path: string): Promise<boolean> {
  try {
    return (await fetch(`${server.url}${path}`)).status === 503;
  } catch {
    return true;
  }
}

test('SIGTERM during a request: the listener closes, the request in flight finishes and is answered, then the process exits 0', async (t) => {
  const held: ServerResponse[] = [];
  const { url } = await httpsServer(t, (_body, _req, res) => void held.push(res));
  const { server, call } = await started(t, { SHUTDOWN_DELAY_MS: '0' });
  const { shopId, invoiceId } = await pendingDynamicOrder(call, url);

  // The owner marks the order paid: completing it asks the delivery endpoint, which holds the answer.
  const processing = call('POST', `/self/${shopId}/invoices/${invoiceId}/process`);
  await waitUntil(() => held.length === 1, 'the delivery endpoint to be asked');
  server.child.kill('SIGTERM');
  await waitUntil(() => refusedBy(server, '/health'), 'the server to stop taking requests');
  assert.equal(server.child.exitCode, null, 'it waits for the request in flight');

  held[0]!.writeHead(200).end('ACCOUNT-1');
  const processed = await processing;
  assert.equal(processed.status, 200, 'the request in flight was answered, not cut');
  assert.equal(processed.body.data.status, 'completed');
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
  assert.match(server.output(), /"msg":"stopped"/);
  assert.doesNotMatch(server.output(), /still running at SHUTDOWN_TIMEOUT_MS/, 'nothing was left to cut');
});

test('SIGTERM with a drain delay: /ready answers 503 at once while every other request is still served', async (t) => {
  const { url } = await httpsServer(t, (_body, _req, res) => void res.writeHead(200).end('ACCOUNT'));
  // A delay longer than the test: the test ends the process itself.
  const { server, call } = await started(t, { SHUTDOWN_DELAY_MS: '600000' });
  const { shopId, order } = await pendingDynamicOrder(call, url);
  assert.equal((await fetch(`${server.url}/ready`)).status, 200);

  server.child.kill('SIGTERM');
  await waitUntil(async () => (await fetch(`${server.url}/ready`)).status === 503, '/ready to turn 503');
  const ready = (await (await fetch(`${server.url}/ready`)).json()) as { errors: string[] };
  assert.deepEqual(ready.errors, ['instance: shutting down']);
  assert.equal((await fetch(`${server.url}/health`)).status, 200, 'the listener is open');
  const placed = await call('POST', `/v2/public/shops/${shopId}/invoices`, order);
  assert.equal(placed.status, 200, 'checkouts are still taken while the load balancer notices');
  assert.equal(server.child.exitCode, null);
});

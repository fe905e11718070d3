import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { CLAIM_LEASE_MS } from '../../src/jobs/lease.js';
import { startWebhookWorker } from '../../src/modules/webhooks/service.js';
import { build, onEnd, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { waitUntil } from '../helpers/wait.js';

/** A hang of the code under test fails on the test runner's timeout, never on the machine's speed. */
const NO_GRACE_LIMIT = 10 * 60_000;

/** An endpoint that leaves the first request unanswered until `answer()`, and answers the others at once. */
async function parkingReceiver(t: TestContext) {
  const state = { received: [] as string[], parked: null as null | (() => void) };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      state.received.push(body);
      if (state.received.length === 1) state.parked = () => res.writeHead(200).end('ok');
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onEnd(
    t,
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, state };
}

test('a webhook send in flight keeps its claim by heartbeat; a stopping worker claims nothing more and records that send', async (t) => {
  // One delivery in flight per endpoint; the send timeout only bounds a hang.
  const app = await build(t, { WEBHOOK_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '60000' });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const receiver = await parkingReceiver(t);
  assertOk(await api.post(`/self/${shop.shopId}/webhooks`, { url: receiver.url, events: ['invoice.created'] }));
  for (let i = 0; i < 2; i++)
    assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: `hook${i}@example.com`,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
      }),
    );
  const deliveries = () =>
    app.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'next_attempt_at'])
      .orderBy('id')
      .execute();

  const worker = startWebhookWorker(app, { heartbeatMs: 10, stopGraceMs: NO_GRACE_LIMIT });
  onEnd(t, () => worker.stop());
  const pass = worker.runOnce();
  await waitUntil(() => receiver.state.parked !== null, 'the first delivery held by the endpoint');
  const [first] = await deliveries();
  assert.equal(first?.status, 'delivering');
  assert.ok(first!.next_attempt_at <= Date.now() + CLAIM_LEASE_MS, 'a lease of at most CLAIM_LEASE_MS');

  // As if the lease were about to run out: the live worker pushes it on again.
  const soon = Date.now() + 5_000;
  await app.db.kysely
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: soon })
    .where('status', '=', 'delivering')
    .execute();
  await waitUntil(
    async () => (await deliveries())[0]!.next_attempt_at >= soon + CLAIM_LEASE_MS - 10_000,
    'the lease renewed',
  );

  const stopped = worker.stop();
  receiver.state.parked!();
  assert.equal(await pass, 1);
  await stopped;
  const [sent, waiting] = await deliveries();
  assert.deepEqual([sent?.status, sent?.attempts], ['succeeded', 1]);
  assert.deepEqual([waiting?.status, waiting?.attempts], ['pending', 0], 'nothing claimed once stopping');

  // Another worker (the app's own) delivers the rest at once.
  assert.equal(await app.webhookWorker.runOnce(), 1);
  assert.equal(receiver.state.received.length, 2);
});

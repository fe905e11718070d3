import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/app.js';
import { isPublicAddress } from '../../src/http/address-guard.js';
import { RETRY_DELAYS_MS, retryDelayMs } from '../../src/modules/webhooks/service.js';
import { build, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP receiver that records every request and answers `status()`. */
async function receiver(t: TestContext, status: () => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(status()).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onEnd(t, () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const app = await build(t, env);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const buy = async () =>
    assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: 'hook@example.com',
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
      }),
    );
  return { app, api, ...shop, buy, base: `/self/${shop.shopId}/webhooks` };
}

test('events are signed per Standard Webhooks and verify with the reference library', async (t) => {
  const { app, api, shopId, buy, base } = await setup(t);
  const sink = await receiver(t);
  const created = assertOk(await api.post(base, { url: sink.url, events: ['invoice.created', 'invoice.completed', 'customer.balance_changed'] }));
  assert.match(created.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.equal(assertOk(await api.get(`${base}/${created.id}`)).secret, undefined, 'the secret is shown once');
  const invoice = await buy();
  assertOk(await api.post(`/self/${shopId}/invoices/${invoice.id}/process`));
  assert.equal(await app.webhookWorker.runOnce(), 1, 'one at a time per endpoint, in order');
  while ((await app.webhookWorker.runOnce()) > 0);
  assert.deepEqual(sink.received.map((r) => JSON.parse(r.body).type), ['invoice.created', 'invoice.completed']);
  const verifier = new Webhook(created.secret);
  for (const r of sink.received) {
    const payload = verifier.verify(r.body, { 'webhook-id': r.headers['webhook-id'] as string, 'webhook-timestamp': r.headers['webhook-timestamp'] as string, 'webhook-signature': r.headers['webhook-signature'] as string }) as { id: string; shopId: number; data: { invoiceId: string } };
    assert.equal(payload.id, r.headers['webhook-id']);
    assert.equal(payload.shopId, shopId);
    assert.equal(payload.data.invoiceId, invoice.id);
  }
  assert.throws(() => verifier.verify(sink.received[0]!.body + ' ', sink.received[0]!.headers as Record<string, string>), 'a changed body fails');
  const log = assertOk(await api.get(`${base}/${created.id}/deliveries`));
  assert.equal(log.totalCount, 2);
  assert.deepEqual(log.items.map((a: { eventType: string; statusCode: number; error: null }) => [a.eventType, a.statusCode, a.error]), [
    ['invoice.completed', 200, null],
    ['invoice.created', 200, null],
  ]);
});

test('a failing endpoint is retried with backoff, later events wait their turn, and 410 turns it off', async (t) => {
  const { app, api, buy, base } = await setup(t);
  let status = 500;
  const sink = await receiver(t, () => status);
  const hook = assertOk(await api.post(base, { url: sink.url, events: ['invoice.created'] }));
  const first = await buy();
  await buy();
  const now = Date.now();
  assert.equal(await app.webhookWorker.runOnce(now), 0);
  assert.equal(sink.received.length, 1, 'only the oldest delivery of the endpoint is tried');
  assert.equal(await app.webhookWorker.runOnce(now + 1000), 0, 'not due yet');
  assert.equal(sink.received.length, 1);
  status = 200;
  assert.equal(await app.webhookWorker.runOnce(now + 10_000), 1);
  assert.equal(JSON.parse(sink.received[1]!.body).data.invoiceId, first.id, 'the retry of the first event comes first');
  assert.equal(sink.received[1]!.headers['webhook-id'], sink.received[0]!.headers['webhook-id'], 'a retry keeps the event id');
  assert.equal(await app.webhookWorker.runOnce(now + 10_000), 1);
  assert.equal(sink.received.length, 3);
  const attempts = assertOk(await api.get(`${base}/${hook.id}/deliveries`)).items;
  assert.deepEqual(attempts.map((a: { statusCode: number; attempt: number }) => [a.statusCode, a.attempt]), [[200, 1], [200, 2], [500, 1]]);

  status = 410;
  await buy();
  await app.webhookWorker.runOnce(now + 20_000);
  const gone = assertOk(await api.get(`${base}/${hook.id}`));
  assert.equal(gone.enabled, false);
  assert.match(gone.disabledReason, /410/);
  await buy();
  await app.webhookWorker.runOnce(now + 30_000);
  assert.equal(sink.received.length, 4, 'nothing more goes to a disabled endpoint');
  assert.equal(await app.db.kysely.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).where('status', '=', 'pending').execute().then((r) => r.length), 0);
});

test('backoff: about three days of retries with jitter', () => {
  const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  assert.ok(total > 2.5 * 86_400_000 && total < 3.5 * 86_400_000, `${total / 3_600_000} h`);
  assert.equal(retryDelayMs(1, () => 0.5), 5_000);
  assert.equal(retryDelayMs(1, () => 0), 4_000);
  assert.equal(retryDelayMs(1, () => 1), 6_000);
  assert.equal(retryDelayMs(99, () => 0.5), RETRY_DELAYS_MS.at(-1));
});

test('pending deliveries survive a restart, and a delivery claimed by a crashed worker is sent again', async (t) => {
  const config = await freshConfig(t);
  const sink = await receiver(t);
  const first = await buildApp({ config, logger: false });
  const api = await owner(first);
  const shop = await sellingShop(api);
  assertOk(await api.post(`/self/${shop.shopId}/webhooks`, { url: sink.url, events: ['invoice.created'] }));
  for (let i = 0; i < 3; i++) {
    assertOk(await api.post(`/v2/public/shops/${shop.shopId}/invoices`, { customerEmail: `r${i}@example.com`, gateway: 'tipjar', parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }] }));
  }
  // The first delivery was claimed when the process died: its lease is still running.
  await first.db.kysely.updateTable('webhook_deliveries').set({ status: 'delivering', next_attempt_at: Date.now() + 60_000 }).where('id', '=', (await first.db.kysely.selectFrom('webhook_deliveries').select('id').orderBy('id').executeTakeFirstOrThrow()).id).execute();
  await first.close();

  const second = await buildApp({ config, logger: false });
  onEnd(t, () => second.close());
  assert.equal(await second.webhookWorker.runOnce(), 0, 'nothing overtakes the claimed first delivery');
  let sent = 0;
  for (let pass = 0; pass < 5; pass++) sent += await second.webhookWorker.runOnce(Date.now() + 3 * 60_000);
  assert.equal(sent, 3);
  assert.equal(sink.received.length, 3);
  assert.equal(new Set(sink.received.map((r) => r.headers['webhook-id'])).size, 3);
});

test('two workers never send the same delivery', async (t) => {
  const { app, buy, api, base } = await setup(t);
  const sink = await receiver(t);
  for (let i = 0; i < 4; i++) assertOk(await api.post(base, { url: sink.url, events: ['invoice.created'] }));
  for (let i = 0; i < 3; i++) await buy();
  const { startWebhookWorker } = await import('../../src/modules/webhooks/service.js');
  const other = startWebhookWorker(app);
  onEnd(t, () => other.stop());
  const now = Date.now();
  for (let pass = 0; pass < 4; pass++) await Promise.all([app.webhookWorker.runOnce(now), other.runOnce(now)]);
  assert.equal(sink.received.length, 12);
  const pairs = sink.received.map((r) => `${r.headers['webhook-id']}`);
  assert.equal(new Set(pairs).size, 3);
  const rows = await app.db.kysely.selectFrom('webhook_deliveries').select('status').execute();
  assert.ok(rows.every((r) => r.status === 'succeeded'));
  const attempts = await app.db.kysely.selectFrom('webhook_attempts').select('id').execute();
  assert.equal(attempts.length, 12, 'one attempt per delivery');
});

test('private addresses are refused at registration and at delivery unless allowed', async (t) => {
  const { app, api, buy, base } = await setup(t, { ALLOW_PRIVATE_WEBHOOKS: 'false' });
  for (const url of ['http://127.0.0.1/x', 'http://localhost:8080/x', 'http://10.1.2.3/x', 'http://192.168.0.1/', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'http://[fd00::1]/', 'http://[::ffff:127.0.0.1]/', 'ftp://example.com/', 'not a url', 'http://user:pw@example.com/']) {
    const res = await api.post(base, { url, events: ['invoice.created'] });
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^url: /);
  }
  assertError(await api.post(base, { url: 'https://example.com/hook', events: [] }), 400, 'validation_error');
  assertError(await api.post(base, { url: 'https://example.com/hook', events: ['invoice.paid'] }), 400, 'validation_error');
  // An endpoint that turns private after registration (DNS change) is refused at delivery.
  const sink = await receiver(t);
  const row = await app.db.kysely
    .insertInto('webhook_endpoints')
    .values({ shop_id: (await app.db.kysely.selectFrom('shops').select('id').executeTakeFirstOrThrow()).id, url: sink.url, events: '["invoice.created"]', secret: app.secrets.seal('whsec_dGVzdA=='), created_at: Date.now(), updated_at: Date.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  await buy();
  await app.webhookWorker.runOnce();
  assert.equal(sink.received.length, 0);
  const attempt = await app.db.kysely.selectFrom('webhook_attempts').selectAll().where('webhook_id', '=', row.id).executeTakeFirstOrThrow();
  assert.match(attempt.error ?? '', /^refused: /);

  for (const address of ['8.8.8.8', '2606:4700:4700::1111']) assert.equal(isPublicAddress(address), true, address);
  for (const address of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '::']) {
    assert.equal(isPublicAddress(address), false, address);
  }
});

test('webhook CRUD, test ping and validation', async (t) => {
  const { api, base } = await setup(t);
  const sink = await receiver(t);
  const hook = assertOk(await api.post(base, { url: sink.url, events: ['ticket.created', 'ticket.created'] }));
  assert.deepEqual(hook.events, ['ticket.created']);
  assert.equal(hook.enabled, true);
  const ping = assertOk(await api.post(`${base}/${hook.id}/test`));
  assert.equal(ping.ok, true);
  assert.equal(ping.statusCode, 200);
  const body = JSON.parse(sink.received[0]!.body);
  assert.equal(body.type, 'ping');
  assert.equal(new Webhook(hook.secret).verify(sink.received[0]!.body, sink.received[0]!.headers as Record<string, string>) !== undefined, true);
  const updated = assertOk(await api.put(`${base}/${hook.id}`, { url: sink.url, events: ['invoice.completed'], enabled: false }));
  assert.deepEqual([updated.events, updated.enabled], [['invoice.completed'], false]);
  assert.equal(assertOk(await api.get(base)).totalCount, 1);
  assert.deepEqual(assertOk(await api.delete(`${base}/${hook.id}`)), { id: hook.id, deleted: true });
  assertError(await api.get(`${base}/${hook.id}`), 404, 'not_found');
  assertError(await api.post(`${base}/${hook.id}/test`), 404, 'not_found');
});

test('a local receiver gets every event type of the contract', async (t) => {
  const { app, api, shopId, productId, keysVariant, serviceVariant, base } = await setup(t);
  const sink = await receiver(t);
  const { eventTypes } = await import('../../src/modules/events/service.js');
  const hook = assertOk(await api.post(base, { url: sink.url, events: [...eventTypes] }));
  const order = (variant: number, quantity: number, email = 'all@example.com') =>
    api.post(`/v2/public/shops/${shopId}/invoices`, { customerEmail: email, gateway: 'tipjar', parts: [{ productId, productVariantId: variant, quantity }] }).then(assertOk);
  const sold = await order(keysVariant, 1); // invoice.created
  const done = assertOk(await api.post(`/self/${shopId}/invoices/${sold.id}/process`)); // invoice.completed
  assertOk(await api.post(`/self/${shopId}/invoices/${sold.id}/replacement`, { partInvoiceId: done.parts[0].id, quantity: 1 })); // invoice.replaced
  const lapsed = await order(serviceVariant, 1);
  await app.db.kysely.updateTable('invoices').set({ expires_at: Date.now() - 1 }).where('id', '=', lapsed.id).execute();
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${lapsed.id}`)).status, 'expired'); // invoice.expired
  const { endUnpaid } = await import('../../src/modules/invoices/lifecycle.service.js');
  const dropped = await order(serviceVariant, 1);
  assert.equal(await endUnpaid(app.db.kysely, shopId, dropped.id, 'cancelled'), true); // invoice.cancelled
  await order(keysVariant, 3); // the last three keys: product.out_of_stock
  assertOk(await api.post(`/self/${shopId}/customers/${done.customerId}/balance/add`, { amount: 1 })); // customer.balance_changed
  const ticket = assertOk(await api.post(`/v2/public/shops/${shopId}/tickets`, { email: 'all@example.com', title: 'Help', message: 'Hi' })); // ticket.created
  assertOk(await api.post(`/self/${shopId}/tickets/${ticket.id}/message`, { content: 'Hello' })); // ticket.message
  assertOk(await api.post(`/v2/public/invoices/${sold.id}/feedback`, { rating: 5, comment: 'Great' })); // feedback.created
  assert.deepEqual(
    (({ rating, comment }) => ({ rating, comment }))(assertOk(await api.get(`/self/${shopId}/invoices/${sold.id}`)).feedback),
    { rating: 5, comment: 'Great' },
    'the invoice shows its feedback',
  );

  for (let pass = 0; pass < 30 && (await app.webhookWorker.runOnce()) > 0; pass++);
  const types = sink.received.map((r) => JSON.parse(r.body).type as string);
  const created = JSON.parse(sink.received.find((r) => JSON.parse(r.body).type === 'invoice.created')!.body);
  assert.equal(created.data.total, 9.99, 'money in events is a decimal in the major unit');
  const balance = JSON.parse(sink.received.find((r) => JSON.parse(r.body).type === 'customer.balance_changed')!.body);
  assert.deepEqual([balance.data.amount, balance.data.balance, balance.data.currency], [1, 1, 'USD']);
  assert.deepEqual([...new Set(types)].sort(), [...eventTypes].sort());
  const verifier = new Webhook(hook.secret);
  for (const r of sink.received) assert.ok(verifier.verify(r.body, r.headers as Record<string, string>));
});

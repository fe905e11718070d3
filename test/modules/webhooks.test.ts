import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/app.js';
import { isPublicAddress } from '../../src/http/address-guard.js';
import { publishEvent } from '../../src/modules/webhooks/publish.js';
import { RETRY_DELAYS_MS, retryDelayMs, startWebhookWorker } from '../../src/modules/webhooks/service.js';
import { build, type Client, freshConfig, onEnd, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { queuedDelivery, webhookReceiver as receiver } from '../helpers/webhook-receiver.js';

/** Held requests wait for their batch: the send timeout only bounds a hang and decides nothing. */
const HELD = { WEBHOOK_TIMEOUT_MS: '60000' };

/**
 * A receiver that holds every request and answers them in batches, to measure how many a
 * worker has in flight without any clock: a batch is answered once as many are held as could
 * be in flight at once — the bound, or fewer when fewer objects have events left, since an
 * object has at most one in flight. `expect(object, n)` announces events as the test records them.
 */
async function gatedReceiver(t: TestContext, bound: number, objectOf: (body: any) => string) {
  const left = new Map<string, number>();
  const held: { res: ServerResponse; object: string }[] = [];
  const seen = { bodies: [] as any[], maxInFlight: 0, maxInFlightPerObject: 0 };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const object = objectOf(body);
      seen.bodies.push(body);
      held.push({ res, object });
      seen.maxInFlight = Math.max(seen.maxInFlight, held.length);
      seen.maxInFlightPerObject = Math.max(seen.maxInFlightPerObject, held.filter((h) => h.object === object).length);
      const active = [...left.values()].filter((n) => n > 0).length;
      if (held.length >= Math.min(bound, active)) {
        for (const h of held.splice(0)) {
          left.set(h.object, (left.get(h.object) ?? 0) - 1);
          h.res.writeHead(200).end('ok');
        }
      }
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
  const expect = (object: string, n: number) => left.set(object, (left.get(object) ?? 0) + n);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, seen, expect };
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
  const created = assertOk(
    await api.post(base, {
      url: sink.url,
      events: ['invoice.created', 'invoice.completed', 'customer.balance_changed'],
    }),
  );
  assert.match(created.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.equal(assertOk(await api.get(`${base}/${created.id}`)).secret, undefined, 'the secret is shown once');
  const invoice = await buy();
  assertOk(await api.post(`/self/${shopId}/invoices/${invoice.id}/process`));
  assert.equal(await app.webhookWorker.runOnce(), 2, 'one pass: created, and once it is through, completed');
  assert.deepEqual(
    sink.received.map((r) => JSON.parse(r.body).type),
    ['invoice.created', 'invoice.completed'],
  );
  const verifier = new Webhook(created.secret);
  for (const r of sink.received) {
    const payload = verifier.verify(r.body, {
      'webhook-id': r.headers['webhook-id'] as string,
      'webhook-timestamp': r.headers['webhook-timestamp'] as string,
      'webhook-signature': r.headers['webhook-signature'] as string,
    }) as { id: string; shopId: number; data: { invoiceId: string } };
    assert.equal(payload.id, r.headers['webhook-id']);
    assert.equal(payload.shopId, shopId);
    assert.equal(payload.data.invoiceId, invoice.id);
  }
  assert.throws(
    () => verifier.verify(`${sink.received[0]!.body} `, sink.received[0]!.headers as Record<string, string>),
    'a changed body fails',
  );
  const log = assertOk(await api.get(`${base}/${created.id}/deliveries`));
  assert.equal(log.totalCount, 2);
  assert.deepEqual(
    log.items.map((a: { eventType: string; statusCode: number; error: null }) => [a.eventType, a.statusCode, a.error]),
    [
      ['invoice.completed', 200, null],
      ['invoice.created', 200, null],
    ],
  );
});

test('a failing delivery is retried with backoff; later events of its invoice wait their turn, other invoices go on; 410 turns it off', async (t) => {
  const { app, api, shopId, buy, base } = await setup(t);
  let failing: string | null = null;
  let gone = false;
  const sink = await receiver(t, (body) => (gone ? 410 : body.data.invoiceId === failing ? 500 : 200));
  const hook = assertOk(await api.post(base, { url: sink.url, events: ['invoice.created', 'invoice.completed'] }));
  const first = await buy();
  failing = first.id;
  assertOk(await api.post(`/self/${shopId}/invoices/${first.id}/process`));
  const second = await buy();
  const seen = () =>
    sink.received.map((r) => {
      const b = JSON.parse(r.body);
      return `${b.type} ${b.data.invoiceId === first.id ? 'first' : 'second'}`;
    });
  const now = Date.now();
  assert.equal(await app.webhookWorker.runOnce(now), 1);
  assert.deepEqual(
    seen().sort(),
    ['invoice.created first', 'invoice.created second'],
    "the first invoice's completion waits behind its failed creation; the second invoice is not held up",
  );
  assert.equal(await app.webhookWorker.runOnce(now + 1000), 0, 'not due yet');
  assert.equal(sink.received.length, 2);
  failing = null;
  assert.equal(await app.webhookWorker.runOnce(now + 10_000), 2);
  assert.deepEqual(
    seen().slice(2),
    ['invoice.created first', 'invoice.completed first'],
    'the retry, then what waited behind it',
  );
  const retried = sink.received.filter(
    (r) => JSON.parse(r.body).type === 'invoice.created' && JSON.parse(r.body).data.invoiceId === first.id,
  );
  assert.equal(retried[1]!.headers['webhook-id'], retried[0]!.headers['webhook-id'], 'a retry keeps the event id');
  const attempts = assertOk(await api.get(`${base}/${hook.id}/deliveries`)).items;
  assert.deepEqual(attempts.map((a: { statusCode: number; attempt: number }) => [a.statusCode, a.attempt]).sort(), [
    [200, 1],
    [200, 1],
    [200, 2],
    [500, 1],
  ]);
  assert.ok(second.id);

  gone = true;
  await buy();
  await app.webhookWorker.runOnce(now + 20_000);
  const disabled = assertOk(await api.get(`${base}/${hook.id}`));
  assert.equal(disabled.enabled, false);
  assert.match(disabled.disabledReason, /410/);
  await buy();
  await app.webhookWorker.runOnce(now + 30_000);
  assert.equal(sink.received.length, 5, 'nothing more goes to a disabled endpoint');
  assert.equal(
    await app.db.kysely
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', hook.id)
      .where('status', '=', 'pending')
      .execute()
      .then((r) => r.length),
    0,
  );
});

test('backoff: about three days of retries with jitter', () => {
  const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  assert.ok(total > 2.5 * 86_400_000 && total < 3.5 * 86_400_000, `${total / 3_600_000} h`);
  assert.equal(
    retryDelayMs(1, () => 0.5),
    5_000,
  );
  assert.equal(
    retryDelayMs(1, () => 0),
    4_000,
  );
  assert.equal(
    retryDelayMs(1, () => 1),
    6_000,
  );
  assert.equal(
    retryDelayMs(99, () => 0.5),
    RETRY_DELAYS_MS.at(-1),
  );
});

test('every documented retry is made: the tenth failure waits its 20 h, the eleventh ends the delivery', async (t) => {
  const clock = new TestClock();
  const app = await build(t, {}, { clock });
  const { sink, delivery } = await queuedDelivery(t, app, () => 500);
  // Nine attempts failed already; each claim counts one.
  await app.db.kysely
    .updateTable('webhook_deliveries')
    .set({ attempts: RETRY_DELAYS_MS.length - 1 })
    .execute();

  assert.equal(await app.webhookWorker.runOnce(), 0);
  const tenth = await delivery();
  assert.deepEqual([tenth.status, tenth.attempts], ['pending', RETRY_DELAYS_MS.length]);
  const wait = tenth.next_attempt_at - clock.now();
  const last = RETRY_DELAYS_MS.at(-1)!;
  assert.ok(wait >= 0.8 * last && wait <= 1.2 * last, `the last retry ${wait / 3_600_000} h later`);
  clock.advance(wait);
  assert.equal(await app.webhookWorker.runOnce(), 0);
  assert.deepEqual([(await delivery()).status, (await delivery()).attempts], ['failed', RETRY_DELAYS_MS.length + 1]);
  assert.equal(sink.received.length, 2);
});

test('pending deliveries survive a restart, and a delivery claimed by a crashed worker is sent again', async (t) => {
  const config = await freshConfig(t);
  const sink = await receiver(t);
  const first = await buildApp({ config, logger: false });
  const api = await owner(first);
  const shop = await sellingShop(api);
  assertOk(
    await api.post(`/self/${shop.shopId}/webhooks`, {
      url: sink.url,
      events: ['invoice.created', 'invoice.completed'],
    }),
  );
  const invoices: { id: string }[] = [];
  for (let i = 0; i < 3; i++) {
    invoices.push(
      assertOk(
        await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
          customerEmail: `r${i}@example.com`,
          gateway: 'tipjar',
          parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
        }),
      ),
    );
  }
  assertOk(await api.post(`/self/${shop.shopId}/invoices/${invoices[0]!.id}/process`));
  // The first delivery (invoice 0 created) was claimed when the process died: its lease is still running.
  const claimed = (
    await first.db.kysely.selectFrom('webhook_deliveries').select('id').orderBy('id').executeTakeFirstOrThrow()
  ).id;
  await first.db.kysely
    .updateTable('webhook_deliveries')
    .set({ status: 'delivering', attempts: 1, next_attempt_at: Date.now() + 60_000 })
    .where('id', '=', claimed)
    .execute();
  await first.close();

  const second = await buildApp({ config, logger: false });
  onEnd(t, () => second.close());
  const sent = () =>
    sink.received.map((r) => {
      const b = JSON.parse(r.body);
      return `${b.type} ${invoices.findIndex((i) => i.id === b.data.invoiceId)}`;
    });
  assert.equal(
    await second.webhookWorker.runOnce(),
    2,
    'other invoices go out; nothing of invoice 0 overtakes its claimed delivery',
  );
  assert.deepEqual(sent().sort(), ['invoice.created 1', 'invoice.created 2']);
  assert.equal(
    await second.webhookWorker.runOnce(Date.now() + 3 * 60_000),
    2,
    'the lapsed claim is sent again, then what waited behind it',
  );
  assert.deepEqual(sent().slice(2), ['invoice.created 0', 'invoice.completed 0']);
  assert.equal(await second.webhookWorker.runOnce(Date.now() + 4 * 60_000), 0);
  assert.equal(new Set(sink.received.map((r) => r.headers['webhook-id'])).size, 4);
});

test('a backlog to one endpoint goes out in one pass, WEBHOOK_CONCURRENCY at a time, and no more with two workers', async (t) => {
  const bound = 5;
  const { app, api, shopId, base } = await setup(t, { WEBHOOK_CONCURRENCY: String(bound), ...HELD });
  const sink = await gatedReceiver(t, bound, (b) => `ticket:${b.data.ticketId}`);
  const ticketMessages = async (from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      sink.expect(`ticket:${i}`, 1);
      await publishEvent(
        app.db.kysely,
        shopId,
        'ticket.message',
        { ticketId: i, messageId: 1, author: 'customer', status: 'open' },
        app.ctx.clock.now(),
      );
    }
  };
  assertOk(await api.post(base, { url: sink.url, events: ['ticket.message'] }));

  await ticketMessages(1, 62);
  assert.equal(await app.webhookWorker.runOnce(), 62, 'sixty-two events, one pass');
  assert.equal(sink.seen.bodies.length, 62);
  assert.equal(sink.seen.maxInFlight, bound, 'the endpoint had the bound in flight, never more');

  // A second worker (another instance) claims beside the first: the bound is per endpoint, not per worker.
  await ticketMessages(101, 41);
  const other = startWebhookWorker(app);
  onEnd(t, () => other.stop());
  const now = Date.now();
  const [a, b] = await Promise.all([app.webhookWorker.runOnce(now), other.runOnce(now)]);
  assert.equal(a + b, 41);
  assert.equal(sink.seen.bodies.length, 103);
  assert.equal(sink.seen.maxInFlight, bound);
  assert.equal(new Set(sink.seen.bodies.map((body) => body.id)).size, 103, 'each event once');
  const rows = await app.db.kysely.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
  assert.ok(rows.every((r) => r.status === 'succeeded' && r.attempts === 1));
});

test('events of one object reach an endpoint in order and one at a time; other objects go alongside', async (t) => {
  const bound = 4;
  const tickets = 6;
  const messages = 5;
  const { app, api, shopId, base } = await setup(t, { WEBHOOK_CONCURRENCY: String(bound), ...HELD });
  const sink = await gatedReceiver(t, bound, (b) => `ticket:${b.data.ticketId}`);
  for (let ticket = 1; ticket <= tickets; ticket++) sink.expect(`ticket:${ticket}`, messages);
  assertOk(await api.post(base, { url: sink.url, events: ['ticket.message'] }));
  // Interleaved, as a busy shop writes them.
  for (let m = 1; m <= messages; m++) {
    for (let ticket = 1; ticket <= tickets; ticket++)
      await publishEvent(
        app.db.kysely,
        shopId,
        'ticket.message',
        { ticketId: ticket, messageId: m, author: 'customer', status: 'open' },
        app.ctx.clock.now(),
      );
  }
  assert.equal(await app.webhookWorker.runOnce(), tickets * messages, 'one pass');
  for (let ticket = 1; ticket <= tickets; ticket++) {
    const order = sink.seen.bodies.filter((b) => b.data.ticketId === ticket).map((b) => b.data.messageId);
    assert.deepEqual(order, [1, 2, 3, 4, 5], `ticket ${ticket}`);
  }
  assert.equal(sink.seen.maxInFlightPerObject, 1, 'never two events of one ticket in flight');
  assert.equal(sink.seen.maxInFlight, bound, 'different tickets in flight together, up to the bound');
});

test('invoice events carry the invoice as the owner API shows it right after the change', async (t) => {
  const { app, api, shopId, buy, base } = await setup(t);
  const sink = await receiver(t);
  assertOk(
    await api.post(base, {
      url: sink.url,
      events: ['invoice.created', 'invoice.completed', 'invoice.replaced', 'invoice.expired', 'invoice.cancelled'],
    }),
  );
  const invoices = `/self/${shopId}/invoices`;
  const views = new Map<string, unknown>();
  const snapshot = async (type: string, id: string) =>
    views.set(`${type} ${id}`, assertOk(await api.get(`${invoices}/${id}`)));

  const sold = await buy();
  await snapshot('invoice.created', sold.id);
  const done = assertOk(await api.post(`${invoices}/${sold.id}/process`));
  await snapshot('invoice.completed', sold.id);
  assert.deepEqual(views.get(`invoice.completed ${sold.id}`), done, 'the process answer is that view too');
  assertOk(await api.post(`${invoices}/${sold.id}/replacement`, { partInvoiceId: done.parts[0].id, quantity: 1 }));
  await snapshot('invoice.replaced', sold.id);
  const lapsed = await buy();
  await snapshot('invoice.created', lapsed.id);
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1 })
    .where('id', '=', lapsed.id)
    .execute();
  await snapshot('invoice.expired', lapsed.id); // this read expires it
  const dropped = await buy();
  await snapshot('invoice.created', dropped.id);
  const { endUnpaid } = await import('../../src/modules/orders/lifecycle.service.js');
  assert.equal(await endUnpaid(app.ctx, shopId, dropped.id, 'cancelled'), true);
  await snapshot('invoice.cancelled', dropped.id);

  while ((await app.webhookWorker.runOnce()) > 0);
  const events = sink.received.map((r) => JSON.parse(r.body));
  assert.equal(events.length, views.size);
  for (const event of events) {
    assert.deepEqual(
      event.data.invoice,
      views.get(`${event.type} ${event.data.invoiceId}`),
      `${event.type} ${event.data.invoiceId}`,
    );
  }
  const byType = (type: string) => events.find((e) => e.type === type).data;
  // The fields receivers had before stay beside the invoice.
  assert.deepEqual(
    [byType('invoice.created').total, byType('invoice.created').currency, byType('invoice.created').gateway],
    [9.99, 'USD', 'tipjar'],
  );
  assert.equal(byType('invoice.completed').commission, 0);
  assert.deepEqual(
    [byType('invoice.replaced').partInvoiceId, byType('invoice.replaced').quantity],
    [done.parts[0].id, 1],
  );
  assert.equal(byType('invoice.completed').invoice.status, 'completed');
  assert.deepEqual(byType('invoice.completed').invoice.parts[0].deliverables, ['K1']);
  assert.equal(byType('invoice.replaced').invoice.replacements.length, 1);
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
  for (const url of [
    'http://127.0.0.1/x',
    'http://localhost:8080/x',
    'http://10.1.2.3/x',
    'http://192.168.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/x',
    'http://[fd00::1]/',
    'http://[::ffff:127.0.0.1]/',
    'ftp://example.com/',
    'not a url',
    'http://user:pw@example.com/',
  ]) {
    const res = await api.post(base, { url, events: ['invoice.created'] });
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^url: /);
  }
  assertError(await api.post(base, { url: 'https://example.com/hook', events: [] }), 400, 'validation_error');
  assertError(
    await api.post(base, { url: 'https://example.com/hook', events: ['invoice.paid'] }),
    400,
    'validation_error',
  );
  // An endpoint that turns private after registration (DNS change) is refused at delivery.
  const sink = await receiver(t);
  const row = await app.db.kysely
    .insertInto('webhook_endpoints')
    .values({
      shop_id: (await app.db.kysely.selectFrom('shops').select('id').executeTakeFirstOrThrow()).id,
      url: sink.url,
      events: '["invoice.created"]',
      secret: app.secrets.seal('whsec_dGVzdA=='),
      created_at: Date.now(),
      updated_at: Date.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await buy();
  await app.webhookWorker.runOnce();
  assert.equal(sink.received.length, 0);
  const attempt = await app.db.kysely
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('webhook_id', '=', row.id)
    .executeTakeFirstOrThrow();
  assert.match(attempt.error ?? '', /^refused: /);

  for (const address of ['8.8.8.8', '2606:4700:4700::1111']) assert.equal(isPublicAddress(address), true, address);
  for (const address of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:10.0.0.1',
    '::',
    '::7f00:1',
    '::a00:1',
    '::127.0.0.1',
  ]) {
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
  assert.equal(
    new Webhook(hook.secret).verify(sink.received[0]!.body, sink.received[0]!.headers as Record<string, string>) !==
      undefined,
    true,
  );
  const updated = assertOk(
    await api.put(`${base}/${hook.id}`, { url: sink.url, events: ['invoice.completed'], enabled: false }),
  );
  assert.deepEqual([updated.events, updated.enabled], [['invoice.completed'], false]);
  assert.equal(assertOk(await api.get(base)).totalCount, 1);
  assert.deepEqual(assertOk(await api.delete(`${base}/${hook.id}`)), { id: hook.id, deleted: true });
  assertError(await api.get(`${base}/${hook.id}`), 404, 'not_found');
  assertError(await api.post(`${base}/${hook.id}/test`), 404, 'not_found');
});

test('a local receiver gets every event type of the contract', async (t) => {
  const { app, api, shopId, productId, keysVariant, serviceVariant, base } = await setup(t);
  const sink = await receiver(t);
  const { eventTypes } = await import('../../src/modules/webhooks/event-types.js');
  const hook = assertOk(await api.post(base, { url: sink.url, events: [...eventTypes] }));
  const order = (variant: number, quantity: number, email = 'all@example.com') =>
    api
      .post(`/v2/public/shops/${shopId}/invoices`, {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId, productVariantId: variant, quantity }],
      })
      .then(assertOk);
  const sold = await order(keysVariant, 1); // invoice.created
  const done = assertOk(await api.post(`/self/${shopId}/invoices/${sold.id}/process`)); // invoice.completed
  assertOk(
    await api.post(`/self/${shopId}/invoices/${sold.id}/replacement`, { partInvoiceId: done.parts[0].id, quantity: 1 }),
  ); // invoice.replaced
  assertOk(await api.post(`/self/${shopId}/invoices/${sold.id}/refund`, { amount: 1, reason: 'goodwill' })); // invoice.refunded
  const lapsed = await order(serviceVariant, 1);
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1 })
    .where('id', '=', lapsed.id)
    .execute();
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${lapsed.id}`)).status, 'expired'); // invoice.expired
  const { endUnpaid } = await import('../../src/modules/orders/lifecycle.service.js');
  const dropped = await order(serviceVariant, 1);
  assert.equal(await endUnpaid(app.ctx, shopId, dropped.id, 'cancelled'), true); // invoice.cancelled
  await order(keysVariant, 3); // the last three keys: product.out_of_stock
  assertOk(await api.post(`/self/${shopId}/customers/${done.customerId}/balance/add`, { amount: 1 })); // customer.balance_changed
  const ticket = assertOk(
    await api.post(`/v2/public/shops/${shopId}/tickets`, { email: 'all@example.com', title: 'Help', message: 'Hi' }),
  ); // ticket.created
  assertOk(await api.post(`/self/${shopId}/tickets/${ticket.id}/message`, { content: 'Hello' })); // ticket.message
  assertOk(await api.post(`/v2/public/invoices/${sold.id}/feedback`, { rating: 5, comment: 'Great' })); // feedback.created
  assert.deepEqual(
    (({ rating, comment }) => ({ rating, comment }))(
      assertOk(await api.get(`/self/${shopId}/invoices/${sold.id}`)).feedback,
    ),
    { rating: 5, comment: 'Great' },
    'the invoice shows its feedback',
  );
  // A licence of the sold order, issued as fulfilment does, then activated, freed and revoked.
  const { issueLicenses } = await import('../../src/modules/licenses/index.js');
  const licenseKey = 'ALL-EVENTS-LICENSE-KEY';
  await app.db.kysely.transaction().execute((trx) =>
    issueLicenses(
      trx,
      shopId,
      {
        invoiceId: sold.id,
        productId,
        variantId: keysVariant,
        customerId: done.customerId,
        email: 'all@example.com',
        keys: [licenseKey],
        activationLimit: 1,
        expiresAt: null,
      },
      Date.now(),
    ),
  );
  const licenses = `/v2/public/shops/${shopId}/licenses`;
  const activated = assertOk(await api.post(`${licenses}/activate`, { licenseKey, instanceName: 'Laptop' })); // license.activated
  assertOk(await api.post(`${licenses}/deactivate`, { licenseKey, instanceId: activated.instanceId })); // license.deactivated
  const [license] = assertOk(await api.get(`/self/${shopId}/licenses`)).items;
  assertOk(await api.post(`/self/${shopId}/licenses/${license.id}/revoke`)); // license.revoked
  // invoice.disputed: Stripe's dispute event finds a card order by its PaymentIntent; the sold
  // order is made one (test/modules/disputes.test.ts goes through the Stripe double).
  await app.db.kysely
    .updateTable('invoices')
    .set({ gateway: 'cardconnect', payment_source: 'provider', payment_reference: 'pi_all_events' })
    .where('id', '=', sold.id)
    .execute();
  const { recordDispute } = await import('../../src/modules/disputes/index.js');
  const disputes = { secrets: app.secrets, endpoints: app.config.payments, log: app.log };
  const facts = {
    id: 'dp_all_events',
    reference: 'pi_all_events',
    status: 'needs_response' as const,
    reason: 'fraudulent',
    amount: 999,
    currency: 'USD',
  };
  assert.equal(await recordDispute(app.ctx, disputes, shopId, 'cardconnect', facts), 'disputed');

  for (let pass = 0; pass < 30 && (await app.webhookWorker.runOnce()) > 0; pass++);
  const types = sink.received.map((r) => JSON.parse(r.body).type as string);
  const keys = await app.db.kysely
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['e.type', 'd.ordering_key'])
    .execute();
  for (const { type, ordering_key } of keys)
    assert.match(
      ordering_key ?? '',
      /^(invoice|ticket|product|customer|license):[\w-]+$/,
      `${type} has an ordering key`,
    );
  // Events of different invoices are not ordered against each other: pick the first invoice's.
  const created = JSON.parse(
    sink.received.find(
      (r) => JSON.parse(r.body).type === 'invoice.created' && JSON.parse(r.body).data.invoiceId === sold.id,
    )!.body,
  );
  assert.equal(created.data.total, 9.99, 'money in events is a decimal in the major unit');
  const balance = JSON.parse(sink.received.find((r) => JSON.parse(r.body).type === 'customer.balance_changed')!.body);
  assert.deepEqual([balance.data.amount, balance.data.balance, balance.data.currency], [1, 1, 'USD']);
  assert.deepEqual([...new Set(types)].sort(), [...eventTypes].sort());
  const verifier = new Webhook(hook.secret);
  for (const r of sink.received) assert.ok(verifier.verify(r.body, r.headers as Record<string, string>));
});

test('an invoice event no endpoint receives keeps no snapshot of the invoice: no copy of the delivered goods in the events table', async (t) => {
  const { app, api, shopId, buy, base } = await setup(t);
  const sink = await receiver(t);
  // Subscribed to completions only: the created events go nowhere.
  assertOk(await api.post(base, { url: sink.url, events: ['invoice.completed'] }));
  const sold = await buy();
  assertOk(await api.post(`/self/${shopId}/invoices/${sold.id}/process`));
  const events = await app.db.kysely
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('shop_id', '=', shopId)
    .execute();
  const created = JSON.parse(events.find((e) => e.type === 'invoice.created')!.payload);
  const completed = JSON.parse(events.find((e) => e.type === 'invoice.completed')!.payload);
  assert.equal(created.invoiceId, sold.id);
  assert.equal(created.invoice, undefined, 'no endpoint takes invoice.created: no snapshot');
  assert.deepEqual(completed.invoice.parts[0].deliverables, ['K1'], 'the subscribed event carries the invoice');
});

/** The delivery of the newest attempt in an endpoint's log, and that log. */
async function deliveryLog(api: Client, url: string) {
  const log = assertOk(await api.get(url)).items as {
    deliveryId: number;
    attempt: number;
    statusCode: number | null;
  }[];
  return { deliveryId: log[0]!.deliveryId, log };
}

test('a resend delivers the same event again, with the same id and payload, whatever the state of its delivery', async (t) => {
  const { app, api, buy, base } = await setup(t);
  let answer = 200;
  const sink = await receiver(t, () => answer);
  const hook = assertOk(await api.post(base, { url: sink.url, events: ['invoice.created'] }));
  await buy();
  assert.equal(await app.webhookWorker.runOnce(), 1);
  const { deliveryId } = await deliveryLog(api, `${base}/${hook.id}/deliveries`);
  const resendUrl = `${base}/${hook.id}/deliveries/${deliveryId}/resend`;
  const eventId = sink.received[0]!.headers['webhook-id'];

  // Succeeded: sent again on the next pass.
  const rearmed = assertOk(await api.post(resendUrl));
  assert.deepEqual(
    [rearmed.id, rearmed.eventId, rearmed.eventType, rearmed.status, rearmed.attempts],
    [deliveryId, eventId, 'invoice.created', 'pending', 1],
  );
  assert.ok(rearmed.nextAttemptAt, 'due');
  assert.ok(rearmed.deliveredAt, 'it was delivered before');
  assert.equal(await app.webhookWorker.runOnce(Date.parse(rearmed.nextAttemptAt)), 1);
  assert.equal(sink.received.length, 2);
  const [first, again] = sink.received;
  assert.equal(again!.headers['webhook-id'], eventId, 'the same event id: receivers deduplicate on it');
  assert.equal(again!.body, first!.body, 'the same payload');
  assert.ok(new Webhook(hook.secret).verify(again!.body, again!.headers as Record<string, string>), 'signed afresh');
  assert.deepEqual(
    (await deliveryLog(api, `${base}/${hook.id}/deliveries`)).log.map((a) => [a.deliveryId, a.attempt, a.statusCode]),
    [
      [deliveryId, 2, 200],
      [deliveryId, 1, 200],
    ],
    'one delivery, its attempts numbered on',
  );

  // Pending, waiting out its backoff after a failure: due now instead.
  answer = 500;
  const failing = assertOk(await api.post(resendUrl));
  assert.equal(await app.webhookWorker.runOnce(Date.parse(failing.nextAttemptAt)), 0);
  const waiting = await app.db.kysely
    .selectFrom('webhook_deliveries')
    .select(['status', 'next_attempt_at'])
    .where('id', '=', deliveryId)
    .executeTakeFirstOrThrow();
  assert.equal(waiting.status, 'pending', 'a failed resend is retried like any delivery');
  answer = 200;
  const retried = assertOk(await api.post(resendUrl));
  assert.ok(waiting.next_attempt_at > Date.parse(failing.nextAttemptAt), 'it was waiting out its backoff');
  assert.ok(Date.parse(retried.nextAttemptAt) <= Date.now(), 'now it is due');
  assert.equal(await app.webhookWorker.runOnce(Date.parse(retried.nextAttemptAt)), 1);

  // Failed for good (its retries used up): one more attempt.
  await app.db.kysely
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', attempts: RETRY_DELAYS_MS.length })
    .where('id', '=', deliveryId)
    .execute();
  const revived = assertOk(await api.post(resendUrl));
  assert.deepEqual([revived.status, revived.attempts], ['pending', RETRY_DELAYS_MS.length]);
  assert.equal(await app.webhookWorker.runOnce(Date.parse(revived.nextAttemptAt)), 1);
  assert.equal(sink.received.length, 5);
  assert.deepEqual(new Set(sink.received.map((r) => r.headers['webhook-id'])), new Set([eventId]));
  assert.ok(sink.received.every((r) => r.body === first!.body));
  const settled = await app.db.kysely
    .selectFrom('webhook_deliveries')
    .select(['status', 'attempts'])
    .where('id', '=', deliveryId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(settled, { status: 'succeeded', attempts: RETRY_DELAYS_MS.length + 1 });
});

test('a resend during a send: that send finishes and is logged, and the event is sent once more after it', async (t) => {
  const { app, api, buy, base } = await setup(t, HELD);
  // Holds the first request until the test releases it.
  const received: string[] = [];
  let arrived!: () => void;
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      if (received.length === 1) {
        arrived();
        void released.then(() => res.writeHead(200).end('ok'));
      } else res.writeHead(200).end('ok');
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
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const hook = assertOk(await api.post(base, { url, events: ['invoice.created'] }));
  await buy();
  const delivery = await app.db.kysely
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', hook.id)
    .executeTakeFirstOrThrow();

  const pass = app.webhookWorker.runOnce();
  await arrival;
  const rearmed = assertOk(await api.post(`${base}/${hook.id}/deliveries/${delivery.id}/resend`));
  assert.deepEqual([rearmed.status, rearmed.attempts], ['pending', 1], 'the send in flight was the first attempt');
  release();
  await pass;
  // Unless the pass was for the very millisecond of the resend, the resend is still due.
  while ((await app.webhookWorker.runOnce(Date.parse(rearmed.nextAttemptAt))) > 0);
  assert.equal(received.length, 2, 'sent once more after the resend');
  assert.equal(received[1], received[0]);
  const attempts = await app.db.kysely
    .selectFrom('webhook_attempts')
    .select(['attempt', 'status_code'])
    .where('delivery_id', '=', delivery.id)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    attempts.map((a) => [a.attempt, a.status_code]),
    [
      [1, 200],
      [2, 200],
    ],
  );
  const row = await app.db.kysely
    .selectFrom('webhook_deliveries')
    .select(['status', 'attempts'])
    .where('id', '=', delivery.id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { status: 'succeeded', attempts: 2 });
});

test("a resend of another shop's or another endpoint's delivery is a 404 and changes nothing", async (t) => {
  const { app, api, buy, base } = await setup(t);
  const sink = await receiver(t);
  const hook = assertOk(await api.post(base, { url: sink.url, events: ['invoice.created'] }));
  const other = assertOk(await api.post(base, { url: sink.url, events: ['ticket.created'] }));
  await buy();
  assert.equal(await app.webhookWorker.runOnce(), 1);
  const { deliveryId } = await deliveryLog(api, `${base}/${hook.id}/deliveries`);
  const rows = () => app.db.kysely.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
  const before = await rows();

  const mallory = await owner(app);
  const malloryShop = await sellingShop(mallory);
  const malloryBase = `/self/${malloryShop.shopId}/webhooks`;
  const malloryHook = assertOk(await mallory.post(malloryBase, { url: sink.url, events: ['invoice.created'] }));
  for (const [who, url] of [
    [mallory, `${base}/${hook.id}/deliveries/${deliveryId}/resend`], // Alice's shop, with Mallory's key
    [mallory, `${malloryBase}/${hook.id}/deliveries/${deliveryId}/resend`], // Alice's endpoint under Mallory's shop
    [mallory, `${malloryBase}/${malloryHook.id}/deliveries/${deliveryId}/resend`], // Alice's delivery, Mallory's endpoint
    [api, `${base}/${other.id}/deliveries/${deliveryId}/resend`], // another endpoint of the same shop
    [api, `${base}/${hook.id}/deliveries/${deliveryId + 1000}/resend`], // no such delivery
  ] as const) {
    assertError(await who.post(url), 404, 'not_found');
  }
  const wrongEndpoint = await api.post(`${base}/${other.id}/deliveries/${deliveryId}/resend`);
  assert.equal(wrongEndpoint.body.message, 'Delivery not found.');
  assert.deepEqual(await rows(), before, 'nothing changed');
  assert.equal(await app.webhookWorker.runOnce(), 0);
  assert.equal(sink.received.length, 1, 'nothing sent again');

  // Deleting an endpoint deletes its deliveries: a resend finds neither.
  assertOk(await api.delete(`${base}/${hook.id}`));
  assertError(await api.post(`${base}/${hook.id}/deliveries/${deliveryId}/resend`), 404, 'not_found');
});

test('a resend to a disabled endpoint is a 409 that says so, and changes nothing', async (t) => {
  const { app, api, buy, base } = await setup(t);
  let gone = false;
  const sink = await receiver(t, () => (gone ? 410 : 200));
  const hook = assertOk(await api.post(base, { url: sink.url, events: ['invoice.created'] }));
  await buy();
  assert.equal(await app.webhookWorker.runOnce(), 1);
  const { deliveryId } = await deliveryLog(api, `${base}/${hook.id}/deliveries`);
  const resendUrl = `${base}/${hook.id}/deliveries/${deliveryId}/resend`;
  const row = () =>
    app.db.kysely.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow();
  const before = await row();

  assertOk(await api.put(`${base}/${hook.id}`, { url: sink.url, events: ['invoice.created'], enabled: false }));
  const refused = await api.post(resendUrl);
  assertError(refused, 409, 'conflict');
  assert.match(refused.body.message, /endpoint is disabled.*enable it/);
  assert.deepEqual(await row(), before);

  // Turned off by the service (the receiver answered 410): the message gives the reason.
  assertOk(await api.put(`${base}/${hook.id}`, { url: sink.url, events: ['invoice.created'], enabled: true }));
  gone = true;
  const rearmed = assertOk(await api.post(resendUrl));
  assert.equal(await app.webhookWorker.runOnce(Date.parse(rearmed.nextAttemptAt)), 0);
  assert.equal(assertOk(await api.get(`${base}/${hook.id}`)).enabled, false);
  const again = await api.post(resendUrl);
  assertError(again, 409, 'conflict');
  assert.match(again.body.message, /disabled \(gone: the endpoint answered HTTP 410\)/);
  assert.equal(sink.received.length, 2);
});

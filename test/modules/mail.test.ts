import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { langOf } from '../../src/i18n/lang.js';
import { CLAIM_LEASE_MS } from '../../src/jobs/lease.js';
import { deliveryMail } from '../../src/modules/mail/index.js';
import { enqueueMail, MAX_ATTEMPTS, retryDelayMs } from '../../src/modules/mail/service.js';
import { startMailWorker } from '../../src/modules/mail/worker.js';
import { build, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertOk, createShop, sellingShop } from '../helpers/factories.js';
import { parseMessage, smtpSink } from '../helpers/smtp-sink.js';
import { waitUntil } from '../helpers/wait.js';

async function shopIn(app: FastifyInstance): Promise<number> {
  return (await createShop(await owner(app))).id;
}

function outbox(app: FastifyInstance) {
  return app.db.kysely.selectFrom('mail_outbox').selectAll().orderBy('id').execute();
}

/** A port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const order = deliveryMail({
  lang: langOf('en'),
  shopName: 'Crème Keys',
  invoiceId: 'inv_8f3kQ2pLx9aZ',
  invoiceUrl: 'https://shop.example.com/s/creme/invoices/inv_8f3kQ2pLx9aZ',
  total: '19.98 EUR',
  parts: [{ title: 'Game key', quantity: 2, deliverables: ['AAAA-BBBB', 'CCCC-DDDD'] }],
  note: 'Redeem on the launcher — thanks!',
});

test('outbox mail goes out through SMTP with the configured sender, once', async (t) => {
  const sink = await smtpSink(t);
  const app = await build(t, {
    SMTP_URL: sink.url,
    MAIL_FROM: 'Crème Keys <shop@example.test>',
    MAIL_WORKER_ENABLED: 'false',
  });
  const shopId = await shopIn(app);

  await app.db.kysely
    .transaction()
    .execute((trx) => enqueueMail(trx, shopId, { to: 'buyer@example.test', ...order }, app.ctx.clock.now()));
  // Written in a transaction that rolls back, a mail never existed.
  await assert.rejects(
    app.db.kysely.transaction().execute(async (trx) => {
      await enqueueMail(
        trx,
        shopId,
        { to: 'ghost@example.test', subject: 'never', text: 'never' },
        app.ctx.clock.now(),
      );
      throw new Error('rollback');
    }),
    /rollback/,
  );
  const [queued] = await outbox(app);
  assert.equal((await outbox(app)).length, 1);
  assert.equal(queued?.status, 'pending');
  assert.equal(queued?.shop_id, shopId);
  assert.equal(sink.received.length, 0, 'nothing is sent before the worker runs');

  assert.equal(await app.mailWorker.runOnce(), 1);
  assert.deepEqual(sink.received, [
    {
      envelopeFrom: 'shop@example.test',
      envelopeTo: ['buyer@example.test'],
      from: 'Crème Keys <shop@example.test>',
      to: 'buyer@example.test',
      subject: order.subject,
      text: order.text,
      html: order.html,
    },
  ]);
  const [sent] = await outbox(app);
  assert.equal(sent?.status, 'sent');
  assert.equal(sent?.attempts, 0);
  assert.equal(sent?.last_error, null);
  assert.ok(typeof sent?.sent_at === 'number' && sent.sent_at > 0);

  assert.equal(await app.mailWorker.runOnce(), 0, 'a sent row is not sent again');
  assert.equal(sink.received.length, 1);
});

test('two workers on one database never send the same row', async (t) => {
  const sink = await smtpSink(t);
  // A claim takes 2 × MAIL_CONCURRENCY rows: at 2, one worker cannot claim all 15 at once.
  const app = await build(t, { SMTP_URL: sink.url, MAIL_WORKER_ENABLED: 'false', MAIL_CONCURRENCY: '2' });
  const shopId = await shopIn(app);
  const count = 15;
  for (let i = 0; i < count; i++)
    await enqueueMail(
      app.db.kysely,
      shopId,
      { to: `buyer${i}@example.test`, subject: `mail ${i}`, text: `body ${i}` },
      app.ctx.clock.now(),
    );

  // The second worker has its own connection, as another instance would.
  const otherDb = openDatabase(app.config.database);
  const other = startMailWorker(app, { db: otherDb.kysely, schedule: false });
  onEnd(t, () => otherDb.destroy());
  // Connected before the race, or the first worker may have claimed every row before the other's first statement.
  await otherDb.kysely.selectFrom('mail_outbox').select('id').limit(1).execute();
  const results = await Promise.all([
    app.mailWorker.runOnce(),
    other.runOnce(),
    app.mailWorker.runOnce(),
    other.runOnce(),
  ]);
  await other.stop();

  assert.equal(
    results.reduce((a, b) => a + b, 0),
    count,
    `sent counts ${results.join(', ')}`,
  );
  assert.ok(
    results[0]! + results[2]! > 0 && results[1]! + results[3]! > 0,
    `both workers took part: ${results.join(', ')}`,
  );
  const subjects = sink.received.map((m) => m.subject).sort();
  assert.deepEqual(subjects, Array.from({ length: count }, (_, i) => `mail ${i}`).sort(), 'each mail exactly once');
  assert.ok((await outbox(app)).every((row) => row.status === 'sent'));
});

test('a refused send is retried with backoff and delivered once the server accepts', async (t) => {
  const sink = await smtpSink(t);
  const app = await build(t, { SMTP_URL: sink.url, MAIL_WORKER_ENABLED: 'false' });
  const shopId = await shopIn(app);
  await enqueueMail(
    app.db.kysely,
    shopId,
    { to: 'buyer@example.test', subject: 'Your order', text: 'KEY-1\n' },
    app.ctx.clock.now(),
  );

  sink.rejecting = true;
  const before = Date.now();
  assert.equal(await app.mailWorker.runOnce(), 0);
  let [row] = await outbox(app);
  assert.equal(row?.status, 'pending');
  assert.equal(row?.attempts, 1);
  assert.match(row?.last_error ?? '', /Mailbox busy/);
  assert.ok(row!.next_attempt_at >= before + retryDelayMs(1), 'retried no sooner than the backoff');
  assert.ok(row!.next_attempt_at <= Date.now() + retryDelayMs(1));

  sink.rejecting = false;
  assert.equal(await app.mailWorker.runOnce(), 0, 'not due yet');
  assert.equal(sink.received.length, 0);

  await app.db.kysely.updateTable('mail_outbox').set({ next_attempt_at: Date.now() }).execute();
  assert.equal(await app.mailWorker.runOnce(), 1);
  [row] = await outbox(app);
  assert.equal(row?.status, 'sent');
  assert.equal(row?.attempts, 1, 'failed attempts stay counted');
  assert.equal(row?.last_error, null);
  assert.equal(sink.received.length, 1);
  assert.equal(sink.received[0]?.text, 'KEY-1\n');
});

test('an unreachable server: attempts add up, backoff grows, the row fails after the last attempt', async (t) => {
  const app = await build(t, { SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`, MAIL_WORKER_ENABLED: 'false' });
  const shopId = await shopIn(app);
  await enqueueMail(app.db.kysely, shopId, { to: 'buyer@example.test', subject: 's', text: 't' }, app.ctx.clock.now());

  assert.equal(await app.mailWorker.runOnce(), 0);
  let [row] = await outbox(app);
  assert.equal(row?.status, 'pending');
  assert.equal(row?.attempts, 1);
  assert.match(row?.last_error ?? '', /ECONNREFUSED|connect/i);

  await app.db.kysely
    .updateTable('mail_outbox')
    .set({ attempts: MAX_ATTEMPTS - 1, next_attempt_at: Date.now() })
    .execute();
  assert.equal(await app.mailWorker.runOnce(), 0);
  [row] = await outbox(app);
  assert.equal(row?.status, 'failed');
  assert.equal(row?.attempts, MAX_ATTEMPTS);
  assert.equal(await app.mailWorker.runOnce(), 0, 'a failed row is left alone');
});

test('backoff: 30 s doubling per attempt, capped at an hour', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map(retryDelayMs),
    [30, 60, 120, 240, 480, 960, 1920].map((s) => s * 1000),
  );
  assert.equal(retryDelayMs(12), 60 * 60 * 1000);
});

test('without SMTP_URL each mail is an .eml file under DATA_DIR/mail, text and HTML; the log has its metadata, never what was bought', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const config = await freshConfig(t, {
    MAIL_WORKER_ENABLED: 'false',
    MAIL_FROM: 'Key Shop <shop@example.test>',
    PUBLIC_URL: 'https://shops.example.test',
  });
  assert.equal(config.mail.smtpUrl, undefined);
  const app = await buildApp({ config, logger: { level: 'trace', stream } });
  onEnd(t, () => app.close());
  const api = await owner(app);
  const serials = ['LIC-7Q2M-XR4T-0001', 'LIC-9K3P-ZW8D-0002'];
  const shop = await sellingShop(api, { serials });
  const invoice = assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'buyer@example.test',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 2 }],
    }),
  );
  assert.equal(await app.mailWorker.runOnce(), 1, 'the checkout mail');
  const done = assertOk(await api.post(`/self/${shop.shopId}/invoices/${invoice.id}/process`));
  assert.deepEqual(done.parts[0].deliverables, serials);
  assert.equal(await app.mailWorker.runOnce(), 1, 'the delivery mail');
  const rows = await outbox(app);
  assert.deepEqual(
    rows.map((r) => r.status),
    ['sent', 'sent'],
  );
  const row = rows[1]!;

  const log = lines.join('\n');
  for (const serial of serials)
    assert.ok(
      !log.includes(serial),
      `a delivered serial is in the log: ${lines.filter((l) => l.includes(serial)).join('\n')}`,
    );
  const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.component === 'mail');
  assert.equal(logged.length, 2, JSON.stringify(logged));
  assert.deepEqual(Object.keys(logged[1]!).sort(), [
    'component',
    'file',
    'hostname',
    'level',
    'mailId',
    'msg',
    'pid',
    'shopId',
    'time',
    'to',
  ]);
  assert.equal(logged[1]?.level, 30, 'info');
  assert.equal(logged[1]?.to, 'buyer@example.test');
  assert.equal(logged[1]?.subject, undefined, 'the subject names the order, whose id opens its page');
  assert.ok(!JSON.stringify(logged).includes(invoice.id), 'the invoice id (the key to its page) is never logged');
  assert.equal(logged[1]?.mailId, row.id);
  assert.equal(logged[1]?.shopId, shop.shopId);

  const dir = join(config.dataDir, 'mail');
  const files = readdirSync(dir);
  assert.equal(files.length, 2);
  for (const file of files) assert.match(file, /^\d{4}-\d\d-\d\dT[\d-]+Z-\d+\.eml$/);
  const file = files.find((f) => f.endsWith(`-${row.id}.eml`))!;
  assert.equal(logged[1]?.file, join(dir, file));
  assert.equal(statSync(dir).mode & 0o777, 0o700, "the directory is the service user's only");
  assert.equal(statSync(join(dir, file)).mode & 0o777, 0o600, "the file is the service user's only");
  const eml = readFileSync(join(dir, file), 'latin1');
  assert.match(eml, /^From: Key Shop <shop@example\.test>$/m);
  assert.match(eml, /^To: buyer@example\.test$/m);
  assert.match(eml, /^Message-ID: </m);
  assert.match(eml, /^Content-Type: multipart\/alternative;/m, 'one message, two renderings of it');
  const parsed = parseMessage(eml);
  assert.equal(parsed.text, row.body_text, 'the text part is the outbox text');
  assert.equal(parsed.html, row.body_html, 'the HTML part is the outbox HTML');
  const { subdomain } = await app.db.kysely
    .selectFrom('shops')
    .select('subdomain')
    .where('id', '=', shop.shopId)
    .executeTakeFirstOrThrow();
  const link = `https://shops.example.test/s/${subdomain}/invoices/${invoice.id}`;
  for (const expected of [...serials, link]) {
    assert.ok(parsed.text.includes(expected), `the text part holds ${expected}`);
    assert.ok(parsed.html?.includes(`>${expected}<`), `the HTML part holds ${expected}`);
  }
});

test('rows abandoned mid-send are recovered once their claim lease ends', async (t) => {
  const sink = await smtpSink(t);
  const app = await build(t, { SMTP_URL: sink.url, MAIL_WORKER_ENABLED: 'false' });
  const shopId = await shopIn(app);
  await enqueueMail(
    app.db.kysely,
    shopId,
    { to: 'a@example.test', subject: 'abandoned', text: 'x' },
    app.ctx.clock.now(),
  );
  await enqueueMail(
    app.db.kysely,
    shopId,
    { to: 'b@example.test', subject: 'in flight', text: 'y' },
    app.ctx.clock.now(),
  );
  const [abandoned, inFlight] = await outbox(app);
  const now = Date.now();
  // A worker crashed and its claim ran out a minute ago; another holds a live claim (its heartbeat renews it).
  await app.db.kysely
    .updateTable('mail_outbox')
    .set({ status: 'sending', next_attempt_at: now - 60_000 })
    .where('id', '=', abandoned!.id)
    .execute();
  await app.db.kysely
    .updateTable('mail_outbox')
    .set({ status: 'sending', next_attempt_at: now + CLAIM_LEASE_MS })
    .where('id', '=', inFlight!.id)
    .execute();

  assert.equal(await app.mailWorker.runOnce(), 1);
  assert.deepEqual(
    sink.received.map((m) => m.subject),
    ['abandoned'],
  );
  const rows = await outbox(app);
  assert.deepEqual(
    rows.map((r) => r.status),
    ['sent', 'sending'],
  );
});

test('the worker sends on its own timer and stops with the app without hanging', { timeout: 600_000 }, async (t) => {
  const sink = await smtpSink(t);
  const config = await freshConfig(t, {
    SMTP_URL: sink.url,
    MAIL_WORKER_INTERVAL_MS: '50',
    MAIL_WORKER_ENABLED: 'true',
  });
  const app = await buildApp({ config, logger: false });
  onEnd(t, () => app.close()); // only if the test failed before closing it
  const shopId = await shopIn(app);
  await enqueueMail(
    app.db.kysely,
    shopId,
    { to: 'buyer@example.test', subject: 'by timer', text: 'x' },
    app.ctx.clock.now(),
  );

  await waitUntil(() => sink.received.length > 0, "the mail sent by the worker's timer");
  assert.deepEqual(
    sink.received.map((m) => m.subject),
    ['by timer'],
  );
  await app.close();
  await assert.rejects(app.mailWorker.runOnce(), /stopped/);

  // Close does not wait for the next interval: with a day between passes it still returns (a
  // close that waited would hang the test).
  const idle = await buildApp({
    config: { ...config, mail: { ...config.mail, intervalMs: 24 * 60 * 60 * 1000 } },
    logger: false,
  });
  await idle.close();
  await assert.rejects(idle.mailWorker.runOnce(), /stopped/);
});

test('mail settings are validated at boot', () => {
  const defaults = loadConfig({});
  assert.deepEqual(defaults.mail, {
    smtpUrl: undefined,
    from: 'shopd <no-reply@localhost>',
    intervalMs: 2000,
    workerEnabled: true,
    concurrency: 20,
  });
  assert.equal(
    loadConfig({ SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465' }).mail.smtpUrl,
    'smtps://user:p%40ss@mail.example.com:465',
  );
  assert.equal(
    loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525?ignoreTLS=true' }).mail.smtpUrl,
    'smtp://127.0.0.1:2525?ignoreTLS=true',
  );
  for (const SMTP_URL of ['http://mail.example.com', 'mail.example.com:25', 'smtp://', 'smtp://exa mple.com']) {
    assert.throws(
      () => loadConfig({ SMTP_URL }),
      (err: Error) => err instanceof ConfigError && /SMTP_URL/.test(err.message),
      SMTP_URL,
    );
  }
  assert.throws(() => loadConfig({ MAIL_WORKER_INTERVAL_MS: '10' }), /MAIL_WORKER_INTERVAL_MS/);
  assert.equal(loadConfig({ MAIL_CONCURRENCY: '7' }).mail.concurrency, 7);
  for (const MAIL_CONCURRENCY of ['0', '51', 'many']) {
    assert.throws(() => loadConfig({ MAIL_CONCURRENCY }), /MAIL_CONCURRENCY/, MAIL_CONCURRENCY);
  }
  assert.equal(loadConfig({ MAIL_WORKER_ENABLED: 'false', MAIL_WORKER_INTERVAL_MS: '50' }).mail.workerEnabled, false);
});

test('mail to a .invalid address is recorded as dropped and never sent', async (t) => {
  const sink = await smtpSink(t);
  const app = await build(t, { SMTP_URL: sink.url, MAIL_WORKER_ENABLED: 'false' });
  const shopId = await shopIn(app);
  for (const to of ['alice@demo.invalid', 'bob@SHOP.INVALID.', 'carol@invalid', 'dave@invalid.example.test']) {
    await enqueueMail(app.db.kysely, shopId, { to, subject: `to ${to}`, text: 'x' }, app.ctx.clock.now());
  }
  assert.equal(await app.mailWorker.runOnce(), 1);
  assert.deepEqual(
    sink.received.map((m) => m.subject),
    ['to dave@invalid.example.test'],
  );
  const rows = await outbox(app);
  assert.deepEqual(
    rows.map((r) => r.status),
    ['dropped', 'dropped', 'dropped', 'sent'],
  );
  assert.match(rows[0]!.last_error ?? '', /\.invalid addresses never receive mail/);
  await app.db.kysely.updateTable('mail_outbox').set({ next_attempt_at: 0 }).execute();
  assert.equal(await app.mailWorker.runOnce(), 0, 'a dropped row is never claimed');
});

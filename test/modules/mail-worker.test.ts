import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { CLAIM_LEASE_MS } from '../../src/jobs/lease.js';
import { claimDueMail, markMailAttemptFailed } from '../../src/modules/mail/repository.js';
import { enqueueMail } from '../../src/modules/mail/service.js';
import { startMailWorker } from '../../src/modules/mail/worker.js';
import { build, onEnd, owner } from '../helpers/build.js';
import { createShop } from '../helpers/factories.js';
import { waitUntil } from '../helpers/wait.js';

/** A hang of the code under test fails on the test runner's timeout, never on the machine's speed. */
const NO_GRACE_LIMIT = 10 * 60_000;

interface Received {
  subject: string;
  messageId: string;
}

/**
 * An SMTP server whose answers to DATA the test controls, to see what the worker has in flight
 * without a clock: messages wait for an answer until `releaseAt` of them wait, then all are
 * answered; `park(n)` keeps the next n messages unanswered until `unpark()`; `loseReplies`
 * answers the next messages with a 451 after keeping them (the server took the mail, the
 * sender never learnt it).
 */
async function controlledSink(t: TestContext, releaseAt = 1) {
  const state = {
    url: '',
    received: [] as Received[],
    waiting: [] as (() => void)[],
    maxWaiting: 0,
    parked: [] as (() => void)[],
    parkNext: 0,
    connections: 0,
    loseReplies: 0,
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback) {
      state.connections++;
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(raw)?.[1]?.trim() ?? '';
        state.received.push({ subject: header('Subject'), messageId: header('Message-ID') });
        if (state.loseReplies > 0) {
          state.loseReplies--;
          return callback(Object.assign(new Error('Connection lost after DATA'), { responseCode: 451 }));
        }
        if (state.parkNext > 0) {
          state.parkNext--;
          state.parked.push(() => callback());
          return;
        }
        state.waiting.push(() => callback());
        state.maxWaiting = Math.max(state.maxWaiting, state.waiting.length);
        if (state.waiting.length >= releaseAt) for (const answer of state.waiting.splice(0)) answer();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `smtp://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  onEnd(t, () => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    state,
    park: (n: number) => {
      state.parkNext = n;
    },
    unpark: () => {
      for (const answer of state.parked.splice(0)) answer();
    },
  };
}

async function shopIn(app: FastifyInstance): Promise<number> {
  return (await createShop(await owner(app))).id;
}

function outbox(app: FastifyInstance) {
  return app.db.kysely.selectFrom('mail_outbox').selectAll().orderBy('id').execute();
}

async function enqueue(app: FastifyInstance, shopId: number, count: number, from = 0) {
  for (let i = from; i < from + count; i++)
    await enqueueMail(
      app.db.kysely,
      shopId,
      { to: `buyer${i}@example.test`, subject: `mail ${i}`, text: `body ${i}` },
      app.ctx.clock.now(),
    );
}

test('MAIL_CONCURRENCY mails are sent at once, over that many pooled connections', async (t) => {
  const concurrency = 4;
  const sink = await controlledSink(t, concurrency);
  const app = await build(t, {
    SMTP_URL: sink.state.url,
    MAIL_CONCURRENCY: String(concurrency),
    MAIL_FROM: 'Shop <shop@example.test>',
  });
  const shopId = await shopIn(app);
  await enqueue(app, shopId, 3 * concurrency);

  // The sink answers only once `concurrency` messages wait for an answer: a worker sending
  // fewer at once would never finish this pass.
  assert.equal(await app.mailWorker.runOnce(), 3 * concurrency);
  assert.equal(sink.state.maxWaiting, concurrency);
  assert.ok(
    sink.state.connections <= concurrency,
    `${sink.state.connections} connections for ${3 * concurrency} mails`,
  );
  const rows = await outbox(app);
  assert.ok(rows.every((r) => r.status === 'sent' && r.claims === 1));
  assert.deepEqual(
    sink.state.received.map((m) => m.messageId).sort(),
    rows.map((r) => r.message_id).sort(),
    'each mail once, with the Message-ID its row keeps',
  );
  for (const row of rows) {
    assert.match(row.message_id ?? '', new RegExp(`^<shopd\\.${row.id}\\.[\\w-]+@example\\.test>$`));
    assert.match(row.transport_response ?? '', /^250 /, 'the server’s answer is kept');
  }
});

test('a stopping worker hands back the rows it has not started at once; its send in flight ends and is recorded', async (t) => {
  const sink = await controlledSink(t);
  const app = await build(t, { SMTP_URL: sink.state.url, MAIL_CONCURRENCY: '1' });
  const shopId = await shopIn(app);
  await enqueue(app, shopId, 3);
  const stopping = startMailWorker(app, { schedule: false, stopGraceMs: NO_GRACE_LIMIT });

  sink.park(1);
  const pass = stopping.runOnce();
  await waitUntil(() => sink.state.parked.length === 1, 'the first mail held by the sink');
  const [first, ...rest] = await outbox(app);
  assert.equal(first?.status, 'sending');
  // A claim takes 2 × MAIL_CONCURRENCY rows: one sending, one claimed ahead of its send.
  assert.deepEqual(
    rest.map((r) => r.status),
    ['sending', 'pending'],
  );
  for (const row of [first!, ...rest])
    assert.ok(row.next_attempt_at <= Date.now() + CLAIM_LEASE_MS, 'a lease of at most CLAIM_LEASE_MS');

  const stopped = stopping.stop();
  await waitUntil(
    async () => (await outbox(app)).filter((r) => r.status === 'pending').length === 2,
    'the row not started handed back',
  );
  assert.equal((await outbox(app))[0]?.status, 'sending', 'the send in flight keeps its claim');

  // Another worker (the app's own) takes them at once, while the first send is still held.
  assert.equal(await app.mailWorker.runOnce(), 2);
  assert.equal(sink.state.parked.length, 1);
  sink.unpark();
  assert.equal(await pass, 1);
  await stopped;

  const rows = await outbox(app);
  assert.deepEqual(
    rows.map((r) => r.status),
    ['sent', 'sent', 'sent'],
  );
  assert.deepEqual(sink.state.received.map((m) => m.subject).sort(), ['mail 0', 'mail 1', 'mail 2'], 'each mail once');
});

test('a crashed worker’s claim is taken by another once its lease is past, and sent with the same Message-ID', async (t) => {
  const sink = await controlledSink(t);
  const app = await build(t, { SMTP_URL: sink.state.url });
  const shopId = await shopIn(app);
  await enqueue(app, shopId, 2);
  const now = Date.now();
  // The dead worker claimed the first row and never renewed its lease; a live one holds the second.
  const [dead] = await claimDueMail(app.db.kysely, now, now - 1, 1, 'dead@example.test>');
  const [live] = await claimDueMail(app.db.kysely, now, now + CLAIM_LEASE_MS, 1, 'live@example.test>');
  assert.deepEqual([dead?.subject, live?.subject], ['mail 0', 'mail 1'], 'one row per claim of one');
  assert.equal(dead?.message_id, `<shopd.${dead?.id}.dead@example.test>`);

  assert.equal(await app.mailWorker.runOnce(), 1);
  assert.deepEqual(sink.state.received, [{ subject: 'mail 0', messageId: dead!.message_id }]);
  const [taken, held] = await outbox(app);
  assert.equal(taken?.status, 'sent');
  assert.equal(taken?.claims, 2);
  assert.equal(held?.status, 'sending', 'a live claim is left alone');
  assert.equal(held?.message_id, live?.message_id);

  // The dead worker's late outcome no longer applies: its claim was taken over.
  await markMailAttemptFailed(app.db.kysely, dead!, {
    attempts: 1,
    lastError: 'late',
    nextAttemptAt: now,
    giveUp: false,
  });
  assert.equal((await outbox(app))[0]?.status, 'sent');
});

test('a mail the server took without the sender hearing back is sent again with the same Message-ID', async (t) => {
  const sink = await controlledSink(t);
  sink.state.loseReplies = 1;
  const app = await build(t, { SMTP_URL: sink.state.url, MAIL_FROM: 'Shop <shop@keys.example.test>' });
  const shopId = await shopIn(app);
  await enqueue(app, shopId, 1);

  assert.equal(await app.mailWorker.runOnce(), 0);
  let [row] = await outbox(app);
  assert.equal(row?.status, 'pending');
  assert.equal(row?.attempts, 1);
  assert.match(row?.message_id ?? '', /^<shopd\.\d+\.[\w-]+@keys\.example\.test>$/);

  await app.db.kysely.updateTable('mail_outbox').set({ next_attempt_at: Date.now() }).execute();
  assert.equal(await app.mailWorker.runOnce(), 1);
  [row] = await outbox(app);
  assert.equal(row?.status, 'sent');
  assert.deepEqual(
    sink.state.received.map((m) => m.messageId),
    [row?.message_id, row?.message_id],
    'both copies carry one Message-ID, which receiving mail systems drop duplicates by',
  );
});

test('the heartbeat renews the lease of a send in flight, however long it takes', async (t) => {
  const sink = await controlledSink(t);
  const app = await build(t, { SMTP_URL: sink.state.url });
  const shopId = await shopIn(app);
  await enqueue(app, shopId, 1);
  const worker = startMailWorker(app, { schedule: false, heartbeatMs: 10, stopGraceMs: NO_GRACE_LIMIT });
  onEnd(t, () => worker.stop());

  sink.park(1);
  const pass = worker.runOnce();
  await waitUntil(() => sink.state.parked.length === 1, 'the mail held by the sink');
  // As if the lease were about to run out: a live worker pushes it on again.
  const soon = Date.now() + 5_000;
  await app.db.kysely.updateTable('mail_outbox').set({ next_attempt_at: soon }).execute();
  await waitUntil(
    async () => (await outbox(app))[0]!.next_attempt_at >= soon + CLAIM_LEASE_MS - 10_000,
    'the lease renewed',
  );
  assert.equal((await outbox(app))[0]?.status, 'sending');
  sink.unpark();
  assert.equal(await pass, 1);
  assert.equal((await outbox(app))[0]?.status, 'sent');
  assert.equal(sink.state.received.length, 1);
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { openDatabase } from '../../src/db/database.js';
import { onConnection } from '../../src/domain/context.js';
import { sweepsJob } from '../../src/jobs/maintenance.js';
import { type Job, JobRunner } from '../../src/jobs/runner.js';
import { enqueueMail, retryDelayMs } from '../../src/modules/mail/service.js';
import { build, onEnd, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertOk, createShop, sellingShop } from '../helpers/factories.js';
import { smtpSink } from '../helpers/smtp-sink.js';
import { waitUntil } from '../helpers/wait.js';
import { queuedDelivery } from '../helpers/webhook-receiver.js';

interface Line {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  msg: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps what is logged, with the bindings of its children. */
function recordingLog(): { log: FastifyBaseLogger; lines: Line[] } {
  const lines: Line[] = [];
  const make = (bindings: Record<string, unknown>): FastifyBaseLogger => {
    const at =
      (level: Line['level']) =>
      (fields: Record<string, unknown>, msg = '') =>
        lines.push({ level, msg, fields: { ...bindings, ...fields } });
    return {
      level: 'trace',
      child: (more: Record<string, unknown>) => make({ ...bindings, ...more }),
      trace: at('trace'),
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      fatal: at('fatal'),
      silent: () => undefined,
    } as unknown as FastifyBaseLogger;
  };
  return { log: make({}), lines };
}

/** A job whose passes each wait for `release()`; it counts how many run at once. */
function gatedJob(overrides: Partial<Job> = {}) {
  const state = { started: 0, running: 0, mostAtOnce: 0, gates: [] as (() => void)[] };
  const job: Job = {
    name: 'gated',
    intervalMs: 60_000,
    scheduled: false,
    drains: false,
    async run() {
      const pass = ++state.started;
      state.running++;
      state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
      await new Promise<void>((resolve) => state.gates.push(resolve));
      state.running--;
      return pass;
    },
    ...overrides,
  };
  const release = () => state.gates.shift()!();
  return { job, state, release };
}

/** Lets every callback and promise that is ready run (the timers are the test's). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

function runnerFor(t: TestContext, clock = new TestClock()) {
  const { log, lines } = recordingLog();
  const runner = new JobRunner({ clock, log });
  onEnd(t, () => runner.stop());
  return { runner, lines };
}

test('passes of a job never overlap; runOnce waits for the pass under way, then runs its own', async (t) => {
  const { runner } = runnerFor(t);
  const { job, state, release } = gatedJob();
  const handle = runner.add(job);

  const first = handle.runOnce();
  const second = runner.runOnce('gated');
  const third = handle.runOnce();
  await waitUntil(() => state.started === 1, 'the first pass');
  await settle();
  assert.equal(state.started, 1, 'the others wait for it');
  release();
  assert.equal(await first, 1);
  await waitUntil(() => state.started === 2, 'the second pass');
  release();
  assert.equal(await second, 2);
  await waitUntil(() => state.started === 3, 'the third pass');
  release();
  assert.equal(await third, 3);
  assert.equal(state.mostAtOnce, 1);

  await assert.rejects(runner.runOnce('unknown'), /no job named unknown/);
  assert.throws(() => runner.add(job), /already/);
});

test('a scheduled pass never overlaps one asked for; the first comes one interval after the job is added', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { runner } = runnerFor(t);
  const { job, state, release } = gatedJob({ scheduled: true, intervalMs: 1000 });
  const handle = runner.add(job);

  t.mock.timers.tick(999);
  await settle();
  assert.equal(state.started, 0);
  const asked = handle.runOnce();
  await settle();
  assert.equal(state.started, 1);
  t.mock.timers.tick(1);
  await settle();
  assert.equal(state.started, 1, 'the timer’s pass waits for the one asked for');
  release();
  assert.equal(await asked, 1);
  await settle();
  assert.equal(state.started, 2);
  release();
  await settle();
  assert.equal(state.mostAtOnce, 1);
});

test('after a pass that did something a draining job goes on at once, any other after its interval; an unscheduled one only when asked', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { runner } = runnerFor(t);
  const results = (name: string, did: number[]) => {
    const state = { runs: 0 };
    const job: Job = {
      name,
      intervalMs: 1000,
      scheduled: true,
      drains: name === 'draining',
      run: async () => did[state.runs++] ?? 0,
    };
    return { job, state };
  };
  const draining = results('draining', [5, 3, 0]);
  const other = results('other', [5, 3, 0]);
  const off = results('off', [1]);
  runner.add(draining.job);
  runner.add(other.job);
  runner.add({ ...off.job, scheduled: false });

  t.mock.timers.tick(1000);
  for (let i = 0; i < 5; i++) {
    await settle();
    t.mock.timers.tick(0);
  }
  assert.equal(draining.state.runs, 3, 'drained until a pass did nothing');
  assert.equal(other.state.runs, 1);
  t.mock.timers.tick(999);
  await settle();
  assert.equal(draining.state.runs, 3, 'then it waits its interval');
  assert.equal(other.state.runs, 1);
  t.mock.timers.tick(1);
  await settle();
  assert.deepEqual([draining.state.runs, other.state.runs], [4, 2]);
  t.mock.timers.tick(24 * 3600_000);
  await settle();
  assert.equal(off.state.runs, 0, 'a job not scheduled never runs on its own');
});

test('a failed pass is logged and the job runs again after its interval; a database outage only at debug', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { log, lines } = recordingLog();
  const outage = new Error('database unreachable');
  const runner = new JobRunner({ clock: new TestClock(), log, health: { report: (err) => err === outage } });
  onEnd(t, () => runner.stop());
  const failures = [new Error('boom'), outage];
  let runs = 0;
  runner.add({
    name: 'flaky',
    intervalMs: 1000,
    scheduled: true,
    drains: true,
    async run() {
      runs++;
      const failure = failures.shift();
      if (failure) throw failure;
      return 0;
    },
  });

  for (let pass = 1; pass <= 3; pass++) {
    t.mock.timers.tick(999);
    await settle();
    assert.equal(runs, pass - 1, 'not before the interval, failed or not');
    t.mock.timers.tick(1);
    await settle();
    assert.equal(runs, pass);
  }
  const logged = lines.filter((l) => l.fields.job === 'flaky');
  assert.deepEqual(
    logged.map((l) => l.level),
    ['error', 'debug'],
  );
  assert.equal((logged[0]!.fields.err as Error).message, 'boom');
  assert.equal(logged[1]!.fields.err, outage);
});

test('a pass works at the clock’s time when it starts, or at the moment it was asked for', async (t) => {
  const clock = new TestClock(1_700_000_000_000);
  const { runner } = runnerFor(t, clock);
  const seen: number[] = [];
  const handle = runner.add({
    name: 'clocked',
    intervalMs: 60_000,
    scheduled: false,
    drains: false,
    run: async (now) => seen.push(now),
  });
  await handle.runOnce();
  clock.advance(30_000);
  await handle.runOnce();
  await handle.runOnce(1_800_000_000_000);
  assert.deepEqual(seen, [1_700_000_000_000, 1_700_000_030_000, 1_800_000_000_000]);
});

test('stop: the timers stop, every job stops (its own way, or once its pass ends), and no pass starts after', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { runner } = runnerFor(t);
  const busy = gatedJob({ name: 'busy', scheduled: true, intervalMs: 1000 });
  const stopping = { asked: false, done: () => {}, passEnded: false };
  const own = gatedJob({
    name: 'own',
    async stop(pass) {
      stopping.asked = true;
      void pass.then(() => (stopping.passEnded = true));
      await new Promise<void>((resolve) => (stopping.done = resolve));
    },
  });
  const busyJob = runner.add(busy.job);
  const ownJob = runner.add(own.job);
  const running = busyJob.runOnce();
  const queued = busyJob.runOnce();
  const ownPass = ownJob.runOnce();
  await settle();

  let stopped = false;
  const stop = runner.stop().then(() => (stopped = true));
  await settle();
  assert.ok(stopping.asked, 'a job with its own stop is asked to stop at once');
  assert.equal(stopped, false);
  await assert.rejects(busyJob.runOnce(), /busy job is stopped/);
  await assert.rejects(runner.runOnce('own'), /own job is stopped/);

  busy.release();
  assert.equal(await running, 1, 'the pass under way ends');
  await assert.rejects(queued, /stopped/, 'the pass queued behind it never starts');
  own.release();
  assert.equal(await ownPass, 1);
  await settle();
  assert.ok(stopping.passEnded, 'its stop was given the pass under way');
  assert.equal(stopped, false, 'still stopping until the job says it is done');
  stopping.done();
  await stop;
  t.mock.timers.tick(60_000);
  await settle();
  assert.equal(busy.state.started, 1, 'the timer was stopped');
});

test('each sweep that fails is logged on its own, and the pass goes on to the next', async (t) => {
  const app = await build(t);
  const { log, lines } = recordingLog();
  const gone = openDatabase(app.config.database);
  await gone.kysely.selectFrom('shops').select('id').execute();
  await gone.destroy();
  // A handle whose every statement fails: each of the five sweeps fails on its own.
  const failing = sweepsJob(onConnection(app.ctx, gone.kysely), log);
  assert.equal(await failing.run(app.ctx.clock.now()), 0, 'the pass itself ends normally');
  assert.deepEqual(
    lines.filter((l) => l.msg.startsWith('sweep failed')).map((l) => l.fields.sweep),
    ['idempotency keys', 'customer sessions', 'owner sessions', 'payment events', 'challenges'],
  );
  // The app's own sweeps run on its runner.
  assert.equal(await app.jobs.runOnce('sweeps'), 0);
});

test('advancing the app’s clock makes a failed mail’s retry due, and runOnce sends it; no sleep', async (t) => {
  const clock = new TestClock();
  const sink = await smtpSink(t);
  const app = await build(t, { SMTP_URL: sink.url }, { clock });
  const shopId = (await createShop(await owner(app))).id;
  await enqueueMail(app.db.kysely, shopId, { to: 'buyer@example.test', subject: 'Your order', text: 'K' }, clock.now());
  const row = () => app.db.kysely.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();

  sink.rejecting = true;
  assert.equal(await app.mailWorker.runOnce(), 0);
  const failedAt = clock.now();
  assert.deepEqual(
    [(await row()).status, (await row()).attempts, (await row()).next_attempt_at],
    ['pending', 1, failedAt + retryDelayMs(1)],
    'the backoff counts from the clock’s time',
  );
  sink.rejecting = false;
  clock.advance(retryDelayMs(1) - 1);
  assert.equal(await app.mailWorker.runOnce(), 0, 'not due yet');
  clock.advance(1);
  assert.equal(await app.mailWorker.runOnce(), 1);
  assert.deepEqual([(await row()).status, (await row()).sent_at], ['sent', clock.now()]);
  assert.equal(sink.received.length, 1);
});

test('advancing the app’s clock makes a failed webhook delivery’s retry due, and runOnce sends it; no sleep', async (t) => {
  const clock = new TestClock();
  const app = await build(t, {}, { clock });
  let answer = 500;
  const { sink, delivery } = await queuedDelivery(t, app, () => answer);

  assert.equal(await app.webhookWorker.runOnce(), 0);
  const failed = await delivery();
  assert.deepEqual([failed.status, failed.attempts], ['pending', 1]);
  const wait = failed.next_attempt_at - clock.now();
  assert.ok(wait >= 4_000 && wait <= 6_000, `the first retry 5 s ± 20 % after the clock’s time: ${wait} ms`);
  answer = 200;
  clock.advance(wait - 1);
  assert.equal(await app.webhookWorker.runOnce(), 0, 'not due yet');
  clock.advance(1);
  assert.equal(await app.webhookWorker.runOnce(), 1);
  assert.deepEqual([(await delivery()).status, (await delivery()).attempts], ['succeeded', 2]);
  assert.equal(sink.received.length, 2);
});

test('advancing the app’s clock past an invoice’s expiry lets the expiry job expire it', async (t) => {
  const clock = new TestClock();
  const app = await build(t, {}, { clock });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const invoice = assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'late@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
    }),
  );
  const stored = () =>
    app.db.kysely
      .selectFrom('invoices')
      .select(['status', 'expires_at'])
      .where('id', '=', invoice.id)
      .executeTakeFirstOrThrow();
  const { expires_at } = await stored();
  assert.equal(await app.jobs.runOnce('invoice-expiry'), 0);
  clock.advance(expires_at - clock.now() + 1);
  assert.equal((await stored()).status, 'pending', 'nobody has looked at it');
  assert.equal(await app.jobs.runOnce('invoice-expiry'), 1);
  assert.equal((await stored()).status, 'expired');
});

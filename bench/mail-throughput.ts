import { Worker } from 'node:worker_threads';
import { BenchFailure, fmt, type Load, startLoad, waitIdle } from './measure.js';
import type { Context, Row } from './scenarios.js';

/**
 * MAIL (issue 33, D9): does the mail outbox keep up with checkouts? Each checkout writes one
 * mail. The soak that found D9 sent 5.2 mails/s against 17 checkouts/s; here checkouts run at
 * c=50 (the most the server places, as T4's c=100) while the mail worker sends through SMTP to a
 * relay in the runner process, and the mails the relay accepted per second are compared with
 * the checkouts placed per second in the same window: ≥ 1× keeps up, below it the outbox
 * falls behind whatever the load.
 *
 * The relay answers each message after `RELAY_DELAY_MS`, a relay on the local network, on a
 * thread of its own (it once shared the runner's event loop with the load generator, and so
 * answered each SMTP command only when autocannon let it: a relay no deployment has); one
 * across the Internet takes longer and wants a higher MAIL_CONCURRENCY (a send takes about
 * that long, so one instance sends up to MAIL_CONCURRENCY ÷ delay mails a second). The worker
 * runs as in production, pointed at the relay, with MAIL_CONCURRENCY from the runner's
 * environment (`MAIL_CONCURRENCY=20 npm run bench -- --only MAIL`), else the default.
 *
 * So that the worker always has mail to send, the checkouts of a first phase run without it
 * (that phase also measures checkouts alone, for what the worker costs them); the rounds then
 * measure both together. A backlog that ran dry would cap the ratio at about 1×: the rows say
 * how many were queued before and after. The server's side is in bench/mail-routes.ts.
 */
const RELAY_DELAY_MS = 10;

/** The relay (bench/smtp-relay-thread.mjs, on a thread of its own): accepts every message after `delayMs`, counting them. */
async function relay(delayMs: number): Promise<{ url: string; accepted: () => number; close(): Promise<void> }> {
  const accepted = new SharedArrayBuffer(4);
  const thread = new Worker(new URL('./smtp-relay-thread.mjs', import.meta.url), { workerData: { delayMs, accepted } });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    thread.once('message', resolve);
    thread.once('error', reject);
  });
  const count = new Int32Array(accepted);
  return {
    url: `smtp://127.0.0.1:${port}`,
    accepted: () => Atomics.load(count, 0),
    close: async () => {
      thread.postMessage('close');
      await new Promise((resolve) => thread.once('exit', resolve));
    },
  };
}

async function post(ctx: Context, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${ctx.base}${path}`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (res.status !== 200) throw new BenchFailure(`POST ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function backlog(ctx: Context): Promise<number> {
  const res = await fetch(`${ctx.base}/__bench/mail/backlog`);
  if (res.status !== 200) throw new BenchFailure(`GET /__bench/mail/backlog: ${res.status}`);
  return ((await res.json()) as { count: number }).count;
}

export async function mailThroughput(ctx: Context): Promise<Row[]> {
  const { productId, variantId, gateway } = ctx.meta.checkout;
  let buyer = 0;
  const body = () =>
    JSON.stringify({
      customerEmail: `bench.mail${buyer++ % 5000}@example.com`,
      gateway,
      parts: [{ productId, productVariantId: variantId, quantity: 1 }],
    });
  const checkout: Load = {
    label: 'checkout',
    method: 'POST',
    path: `/v2/public/shops/${ctx.meta.shopId}/invoices`,
    body: body(),
    setupRequest: (request) => ({ ...request, body: body() }),
    expect: [200],
    // Enough to keep the server placing as many checkouts as it can; MAIL compares rates, and
    // its long runs on a loaded machine had requests waiting past autocannon's 10 s at c=100.
    connections: 50,
    timeoutSeconds: 60,
  };
  const sink = await relay(RELAY_DELAY_MS);
  try {
    // Checkouts alone, long enough to queue what the rounds could send beyond the checkouts' own mail.
    const alone = await startLoad(ctx.base, checkout, ctx.timing.seconds * ctx.timing.rounds).done;
    await waitIdle(ctx.base);
    const queuedBefore = await backlog(ctx);
    ctx.progress(`checkouts alone: ${Math.round(alone.rps)}/s; ${queuedBefore} mails queued`);

    const concurrency = process.env.MAIL_CONCURRENCY ? Number(process.env.MAIL_CONCURRENCY) : undefined;
    const worker = (await post(ctx, '/__bench/mail/start', { smtpUrl: sink.url, concurrency })) as {
      concurrency: number;
    };
    const rounds: { checkouts: number; mails: number }[] = [];
    try {
      const window = async (seconds: number) => {
        const sentBefore = sink.accepted();
        const started = performance.now();
        const stats = await startLoad(ctx.base, checkout, seconds).done;
        const elapsed = (performance.now() - started) / 1000;
        const mails = (sink.accepted() - sentBefore) / elapsed;
        await waitIdle(ctx.base);
        return { checkouts: stats.responses / elapsed, mails };
      };
      await window(ctx.timing.warmupSeconds);
      for (let round = 0; round < ctx.timing.rounds; round++) {
        rounds.push(await window(ctx.timing.seconds));
        const r = rounds[round]!;
        ctx.progress(`round ${round + 1}: ${fmt(r.checkouts, 1)} checkouts/s, ${fmt(r.mails, 1)} mails/s`);
      }
    } finally {
      await post(ctx, '/__bench/mail/stop');
    }
    const queuedAfter = await backlog(ctx);
    const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
    const ratio = median(rounds.map((r) => r.mails / r.checkouts));
    const checkouts = median(rounds.map((r) => r.checkouts));
    const mails = median(rounds.map((r) => r.mails));
    return [
      {
        target: 'MAIL',
        scenario: `mails sent vs checkouts placed per second, both running (c=50, relay ${RELAY_DELAY_MS} ms, MAIL_CONCURRENCY=${worker.concurrency})`,
        measured: `${fmt(ratio)}×`,
        threshold: '≥ 1×',
        met: ratio >= 1,
      },
      {
        target: 'MAIL',
        scenario: 'mails / checkouts with the worker / checkouts alone, per second',
        measured: `${fmt(mails, 1)} / ${fmt(checkouts, 1)} / ${fmt(alone.rps, 1)}`,
        threshold: '—',
        met: null,
      },
      {
        target: 'MAIL',
        scenario: 'mails queued before the worker started / after it stopped',
        measured: `${queuedBefore} / ${queuedAfter}${queuedAfter === 0 ? ' (ran dry: the ratio is a lower bound)' : ''}`,
        threshold: '—',
        met: null,
      },
    ];
  } finally {
    await sink.close();
  }
}

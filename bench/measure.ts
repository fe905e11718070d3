import { get } from 'node:http';
import autocannon, { type Request } from 'autocannon';

/**
 * Load runs with autocannon, and the statistics the report shows. Latencies are taken from
 * every response (autocannon's own histogram keeps whole milliseconds and 2xx only), and any
 * status outside what a run expects makes it throw: a 429 or a 500 never counts as throughput.
 */
export interface Load {
  label: string;
  method?: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Changes each request (random ranges, e-mails); runs once per request sent. */
  setupRequest?: (request: Request) => Request;
  /** Status codes that count; anything else fails the run. */
  expect: number[];
  /** Also accepted, up to 1 % of the answers (a 200 in a 304 run when the page changed meanwhile). */
  tolerate?: number[];
  connections: number;
  pipelining?: number;
  timeoutSeconds?: number;
}

export interface RunStats {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  responses: number;
  /** The longest wait of any request (an unanswered one: its age at the end). */
  max: number;
  /** Requests unanswered for over a second when the run ended (every unanswered one counts with its age as latency). */
  unanswered: number;
}

export interface Timing {
  warmupSeconds: number;
  seconds: number;
  rounds: number;
}

export class BenchFailure extends Error {}

export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A run that can be stopped early (background load); `done` resolves with its statistics. */
export function startLoad(base: string, load: Load, seconds: number): { stop(): void; done: Promise<RunStats> } {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  // With one request in flight per connection, a connection's current request was sent when its
  // previous answer came (or when the run started): at the end, its age is known.
  const lastAnswer = new Map<unknown, number>();
  let started = performance.now();
  const instance = autocannon({
    url: base,
    connections: load.connections,
    pipelining: load.pipelining ?? 1,
    duration: seconds,
    timeout: load.timeoutSeconds ?? 10,
    requests: [
      {
        method: load.method ?? 'GET',
        path: load.path,
        headers: { ...(load.body === undefined ? {} : { 'content-type': 'application/json' }), ...load.headers },
        ...(load.body === undefined ? {} : { body: load.body }),
        ...(load.setupRequest ? { setupRequest: load.setupRequest } : {}),
      },
    ],
  });
  instance.on('start', () => (started = performance.now()));
  instance.on('response', (client: unknown, status: number, _bytes: number, ms: number) => {
    latencies.push(ms);
    lastAnswer.set(client, performance.now());
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const done = (async () => {
    const result = await instance;
    const ended = performance.now();
    const tolerated = [...statuses]
      .filter(([status]) => load.tolerate?.includes(status))
      .reduce((sum, [, n]) => sum + n, 0);
    const unexpected = [...statuses].filter(
      ([status]) => !load.expect.includes(status) && !load.tolerate?.includes(status),
    );
    if (unexpected.length > 0 || tolerated > 0.01 * latencies.length || result.errors > 0 || result.timeouts > 0) {
      const codes = [...statuses].map(([s, n]) => `${s}×${n}`).join(', ');
      throw new BenchFailure(
        `${load.label}: expected only ${load.expect.join('/')}, got [${codes}], ${result.errors} errors, ${result.timeouts} timeouts`,
      );
    }
    const responses = latencies.length;
    const connections = load.connections * (load.pipelining ?? 1);
    const pending = [...lastAnswer.values()].map((t) => ended - t);
    while (pending.length < connections) pending.push(ended - started);
    // Each unanswered request counts with its age at the end: a lower bound of its latency.
    const sorted = Float64Array.from([...latencies, ...pending]).sort();
    return {
      rps: responses / Math.max(result.duration, 0.001),
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      mean: sorted.length ? sorted.reduce((sum, v) => sum + v, 0) / sorted.length : Number.NaN,
      responses,
      max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
      unanswered: pending.filter((age) => age > 1000).length,
    };
  })();
  return { stop: () => instance.stop(), done };
}

/** One GET on a fresh connection (no pooled socket the server may have closed meanwhile). */
function probe(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

/**
 * Waits until the server answers /hello quickly again: requests a run left behind (clients gone,
 * work still queued) must not slow the next run. Throws when it stays busy.
 */
export async function waitIdle(base: string, maxSeconds = 120): Promise<void> {
  const deadline = Date.now() + maxSeconds * 1000;
  let quick = 0;
  let problem = 'answers stayed slow';
  while (Date.now() < deadline) {
    try {
      quick = (await probe(`${base}/hello`, Math.max(1000, deadline - Date.now()))) < 20 ? quick + 1 : 0;
      if (quick >= 3) return;
    } catch (err) {
      quick = 0;
      problem = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new ServerStuck(`the server is still busy ${Math.round(maxSeconds)} s after the run (${problem})`);
}

export class ServerStuck extends BenchFailure {}

export async function runLoad(base: string, load: Load, seconds: number): Promise<RunStats> {
  const stats = await startLoad(base, load, seconds).done;
  await waitIdle(base);
  return stats;
}

export interface Summary {
  rps: number;
  p50: number;
  p99: number;
  rounds: RunStats[];
}

const summarise = (rounds: RunStats[]): Summary => ({
  rps: median(rounds.map((r) => r.rps)),
  p50: median(rounds.map((r) => r.p50)),
  p99: median(rounds.map((r) => r.p99)),
  rounds,
});

export interface Comparison {
  endpoint: Summary;
  baseline: Summary;
  /** Median over rounds of endpoint req/s ÷ baseline req/s. */
  rpsRatio: number;
  /** Median over rounds of endpoint p50 ÷ baseline p50. */
  p50Ratio: number;
}

/** A load, or how to make it afresh before each run (an ETag read just before). */
export type LoadSource = Load | (() => Promise<Load>);
const resolveLoad = async (source: LoadSource): Promise<Load> => (typeof source === 'function' ? source() : source);

/** Warms both up, then alternates them (ABBA…) for `rounds` rounds. */
export async function compare(
  base: string,
  endpoint: LoadSource,
  baseline: LoadSource,
  timing: Timing,
  progress: (line: string) => void,
): Promise<Comparison> {
  const run = async (source: LoadSource, seconds: number) => {
    const load = await resolveLoad(source);
    return { label: load.label, stats: await runLoad(base, load, seconds) };
  };
  await run(endpoint, timing.warmupSeconds);
  await run(baseline, timing.warmupSeconds);
  const a: RunStats[] = [];
  const b: RunStats[] = [];
  for (let round = 0; round < timing.rounds; round++) {
    let first: Awaited<ReturnType<typeof run>>;
    let second: Awaited<ReturnType<typeof run>>;
    if (round % 2 === 0) {
      first = await run(endpoint, timing.seconds);
      second = await run(baseline, timing.seconds);
    } else {
      second = await run(baseline, timing.seconds);
      first = await run(endpoint, timing.seconds);
    }
    a.push(first.stats);
    b.push(second.stats);
    progress(`round ${round + 1}: ${first.label} ${fmtRun(first.stats)} | ${second.label} ${fmtRun(second.stats)}`);
  }
  return {
    endpoint: summarise(a),
    baseline: summarise(b),
    rpsRatio: median(a.map((r, i) => r.rps / b[i]!.rps)),
    p50Ratio: median(a.map((r, i) => r.p50 / b[i]!.p50)),
  };
}

/** One load alone, warmed up, for `rounds` rounds (latency targets). */
export async function measure(
  base: string,
  load: Load,
  timing: Timing,
  progress: (line: string) => void,
): Promise<Summary> {
  await runLoad(base, load, timing.warmupSeconds);
  const rounds: RunStats[] = [];
  for (let round = 0; round < timing.rounds; round++) {
    rounds.push(await runLoad(base, load, timing.seconds));
    progress(`round ${round + 1}: ${load.label} ${fmtRun(rounds[round]!)}`);
  }
  return summarise(rounds);
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const fmtRun = (r: RunStats) =>
  `${Math.round(r.rps)} req/s p50 ${fmt(r.p50)} ms p99 ${fmt(r.p99)} ms${r.unanswered ? ` (${r.unanswered} unanswered)` : ''}`;

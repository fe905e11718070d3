import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { currentMigrations, type Engine, readMeta, type SeedMeta, sqliteFile } from './config.js';
import { ServerStuck, type Timing } from './measure.js';
import { machine, type Report, toMarkdown, writeReport } from './report.js';
import { type Context, type Row, type ServerInfo, scenarios } from './scenarios.js';
import { seedBench } from './seed.js';

/**
 * `npm run bench [-- --seed] [--pg] [--only T1,T5] [--quick]`: seeds when the benchmark database
 * does not exist yet (or with --seed), starts bench/server.ts as a child process, runs the
 * scenarios and prints the report. Exit code 0 even when targets are missed (it is a report);
 * 1 when a scenario errors (a wrong status, a crash) or a correctness check fails (a stale read,
 * an oversold stock).
 */
const args = process.argv.slice(2);
const engine: Engine = args.includes('--pg') ? 'postgres' : 'sqlite';
const quick = args.includes('--quick');
const onlyArg =
  args.find((a) => a.startsWith('--only='))?.slice('--only='.length) ??
  (args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined);
const only = onlyArg ? onlyArg.split(',').map((t) => t.trim().toUpperCase()) : Object.keys(scenarios);
const timing: Timing = quick
  ? { warmupSeconds: 1, seconds: 2, rounds: 3 }
  : { warmupSeconds: 3, seconds: 5, rounds: 3 };

const say = (line: string) => process.stdout.write(`${line}\n`);

// The server under test never outlives the runner, however it ends.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/server.ts', ...(engine === 'postgres' ? ['--pg'] : [])],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bench server did not start within 10 minutes')), 600_000);
    lines.on('line', (line) => {
      if (line.startsWith('BENCH_SERVER_READY ')) {
        clearTimeout(timer);
        resolve((JSON.parse(line.slice('BENCH_SERVER_READY '.length)) as { port: number }).port);
      } else say(`[server] ${line}`);
    });
    child.once('exit', (code) => reject(new Error(`the bench server exited (${code}) before listening`)));
  });
  return { child, port };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function notesFor(meta: SeedMeta, server: ServerInfo): string[] {
  const notes: string[] = [];
  if (!server.pageCache)
    notes.push(
      '`app.pageCache` is missing: there is no page cache yet, so "cached" and "miss" measure the same uncached path.',
    );
  if (!server.observeQueries)
    notes.push('`app.db.observeQueries` is missing: synchronous database time is not measured.');
  if (!meta.rebuilt.includes('rebuildRollups'))
    notes.push('`rebuildRollups` (src/modules/rollups/rollups.ts) was missing at seed time: no rollups were built.');
  const added = server.migrations.filter((m) => !meta.migrations.includes(m));
  if (added.length > 0) notes.push(`Migrations applied after the seed: ${added.join(', ')}.`);
  if (engine === 'postgres')
    notes.push(
      'PostgreSQL: the driver is asynchronous, so "longest synchronous DB call" does not apply; the longest round trip is shown instead.',
    );
  notes.push(
    'The load generator (autocannon) runs on the same 2-core machine as the server, as do other users of this machine: absolute req/s are indicative, ratios are what the targets compare.',
  );
  return notes;
}

async function main(): Promise<void> {
  let meta = readMeta(engine);
  // A database seeded before a migration was added misses what that migration's tables should
  // hold for bulk-inserted rows (and migrating a million invoices is not what is measured): seed again.
  const newer = meta ? currentMigrations().filter((m) => !meta!.migrations.includes(m)) : [];
  const why = args.includes('--seed')
    ? `Seeding the ${engine} benchmark database.`
    : !meta || (engine === 'sqlite' && !existsSync(sqliteFile))
      ? `No benchmark database for ${engine} yet: seeding first.`
      : newer.length > 0
        ? `The ${engine} benchmark database predates migration ${newer.join(', ')}: seeding again.`
        : undefined;
  if (why) {
    say(why);
    meta = await seedBench(engine);
  }
  if (!meta) throw new Error('no seed record');

  say(`Starting the server under test (${engine})…`);
  let { child, port } = await startServer();
  let base = `http://127.0.0.1:${port}`;
  const rows: Row[] = [];
  const errors: Report['errors'] = [];
  let server: ServerInfo;
  try {
    server = (await (await fetch(`${base}/__bench/info`)).json()) as ServerInfo;
    const probe = await fetch(`${base}/v2/public/shops/${meta.shopId}/main`);
    if (probe.status !== 200)
      throw new Error(`the seeded shop ${meta.shopId} answers ${probe.status}: run with --seed`);
    await probe.arrayBuffer();
    const ctx: Context = { base, meta, timing, server, engine, progress: () => undefined };
    for (const target of only) {
      const scenario = scenarios[target];
      if (!scenario) throw new Error(`unknown target ${target}; known: ${Object.keys(scenarios).join(', ')}`);
      say(`\n== ${target}`);
      const started = Date.now();
      try {
        const result = await scenario({ ...ctx, progress: (line) => say(`[${target}] ${line}`) });
        rows.push(...result);
        for (const r of result)
          say(
            `[${target}] ${r.scenario}: ${r.measured} (${r.threshold}) ${r.met === null ? '' : r.met ? 'met' : 'NOT met'}`,
          );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        errors.push({ target, message });
        say(`[${target}] ERROR: ${message}`);
        if (err instanceof ServerStuck) {
          // Later targets get a server of their own rather than this one's backlog.
          say(`[${target}] restarting the server under test`);
          child.kill('SIGKILL');
          ({ child, port } = await startServer());
          base = `http://127.0.0.1:${port}`;
          ctx.base = base;
        }
      }
      say(`[${target}] ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    await stopServer(child);
  }

  const report: Report = {
    date: new Date().toISOString(),
    engine,
    quick,
    machine: machine(),
    timing,
    seed: { seededAt: meta.seededAt, seedSeconds: meta.seedSeconds, counts: meta.counts },
    server,
    notes: notesFor(meta, server),
    rows,
    errors,
  };
  const files = writeReport(
    report,
    Object.keys(scenarios).every((t) => only.includes(t)),
  );
  say(`\n${toMarkdown(report)}`);
  say(`Written: ${files.markdown}, ${files.json}`);
  const broken = rows.filter((r) => r.correctness && r.met === false);
  if (broken.length > 0) say(`Correctness checks failed: ${broken.map((r) => `${r.target} ${r.scenario}`).join('; ')}`);
  process.exitCode = errors.length > 0 || broken.length > 0 ? 1 : 0;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Engine, readMeta, serverEnv } from './config.js';

/**
 * What a timezone change costs on the seeded shop: the request itself (one short transaction),
 * while the rollups are rebuilt in background batches (T9 measures other shops' checkouts
 * meanwhile). Sets another offset and then the seeded one back (the database ends
 * as it was), printing for each the request's time, the longest event-loop stall during it and
 * the statements over 200 ms on the main connection. `node --import tsx bench/timezone-probe.ts [--pg]`.
 */
const engine: Engine = process.argv.includes('--pg') ? 'postgres' : 'sqlite';
const meta = readMeta(engine);
if (!meta) throw new Error('no seeded database: run npm run bench -- --seed first');
const app = await buildApp({ config: loadConfig(serverEnv(engine)), logger: false });
const slow: string[] = [];
app.db.observeQueries((e) => {
  if (e.durationMs > 200)
    slow.push(`  ${e.durationMs.toFixed(0).padStart(6)} ms  ${e.sql.replace(/\s+/g, ' ').slice(0, 110)}`);
});
let stall = 0;
let tick = performance.now();
const ticker = setInterval(() => {
  const now = performance.now();
  stall = Math.max(stall, now - tick - 5);
  tick = now;
}, 5);
// Start-up work (the first statements compiled, the optimizer's first look at the tables) is not the change's.
await app.inject({
  url: `/self/${meta.shopId}/dashboard/general`,
  headers: { authorization: `Bearer ${meta.apiKey}` },
});
await new Promise((resolve) => setTimeout(resolve, 200));
for (const offset of [meta.utcOffsetMinutes === 60 ? 0 : 60, meta.utcOffsetMinutes]) {
  stall = 0;
  const started = performance.now();
  const res = await app.inject({
    method: 'PUT',
    url: `/self/${meta.shopId}/settings/timezone`,
    headers: { authorization: `Bearer ${meta.apiKey}` },
    payload: { utcTimezoneOffset: offset },
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  console.log(
    `offset ${offset}: ${res.statusCode} in ${(performance.now() - started).toFixed(0)} ms, longest event-loop stall ${stall.toFixed(0)} ms`,
  );
  console.log(slow.splice(0).join('\n'));
}
clearInterval(ticker);
await app.close();

import { performance } from 'node:perf_hooks';
import { openDatabase } from '../src/db/database.js';
import { rebuildStep, startRollupRebuild } from '../src/modules/rollups/rollups.js';
import { databaseConfig, readMeta } from './config.js';

/**
 * How long each transaction of a rollup rebuild holds the write connection on the seeded shop
 * (issue 20 asks for about 100 ms at most): forces a rebuild in the shop's own offset, runs it
 * step by step unpaced, and prints the longest steps and percentiles.
 * `node --import tsx bench/rebuild-probe.ts` after `npm run bench` has seeded (SQLite).
 */
const meta = readMeta('sqlite');
if (!meta) throw new Error('no seeded database: run npm run bench -- --seed first');
const db = openDatabase(databaseConfig('sqlite'));
const kysely = db.kysely;
await kysely
  .transaction()
  .execute((trx) =>
    startRollupRebuild(trx, meta.shopId, { offsetMinutes: meta.utcOffsetMinutes, timezone: null }, true),
  );
const steps: number[] = [];
for (;;) {
  const started = performance.now();
  const more = await rebuildStep(kysely, meta.shopId);
  steps.push(performance.now() - started);
  if (!more) break;
}
await db.destroy();
steps.sort((a, b) => a - b);
const at = (q: number) => steps[Math.min(steps.length - 1, Math.floor(q * steps.length))]!.toFixed(1);
console.log(
  `${steps.length} transactions: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${steps.at(-1)!.toFixed(1)} ms; ` +
    `longest five ${steps
      .slice(-5)
      .map((s) => s.toFixed(1))
      .join(', ')} ms`,
);

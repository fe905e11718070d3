import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { up } from '../../src/db/migrations/0025-rollup-blocks-of-8.js';
import type { Database } from '../../src/db/schema.js';
import { BLOCK, bucketRanges, LEVELS, ROLLUP_TABLES, type RollupTable } from '../../src/modules/rollups/rollup-rows.js';
import { seededRandom } from '../../src/modules/seed/demo-data.js';
import { build, owner } from '../helpers/build.js';
import { createShop } from '../helpers/factories.js';

/**
 * Migration 0025 derives the coarser rollup levels again in blocks of 8 days. Day rows of two
 * generations are written as the 32-day rollups left them (levels 1 and 2 in blocks of 32 and
 * 1,024); after the migration every range of days must sum, from the buckets the code reads
 * (`bucketRanges`), exactly what its day rows hold.
 */

const FIRST_DAY = 19_500;

async function sumOfBuckets(
  db: Kysely<Database>,
  table: RollupTable,
  shopId: number,
  generation: number,
  first: number,
  last: number,
) {
  const [measure] = ROLLUP_TABLES[table].sums;
  const ranges = bucketRanges(first, last);
  const row = await sql<{
    total: unknown;
  }>`select coalesce(sum(${sql.id(measure!)}), 0) as total from ${sql.table(table)}
    where shop_id = ${shopId} and generation = ${generation} and (${sql.join(
      ranges.map((r) => sql`(level = ${r.level} and bucket >= ${r.lo} and bucket <= ${r.hi})`),
      sql` or `,
    )})`.execute(db);
  return Number(row.rows[0]!.total);
}

test('migration 0025 rebuilds the coarser rollup levels from the days, in blocks of 8', async (t) => {
  const app = await build(t);
  const shop = await createShop(await owner(app));
  const db = app.db.kysely;
  const random = seededRandom(25);
  // Day rows: generation 1 is live, generation 2 a rebuild half done; each table keyed as the code keys it.
  const days = new Map<string, number>();
  const keyOf: Record<RollupTable, Record<string, string | number>> = {
    rollup_totals: {},
    rollup_products: { product_id: 7, last_part_id: 1 },
    rollup_hours: { hour: 13 },
    rollup_gateways: { gateway: 'tipjar' },
    rollup_invoice_counts: { status: 'completed', gateway: 'tipjar' },
  };
  await sql`delete from rollup_totals where shop_id = ${shop.id}`.execute(db);
  for (const generation of [1, 2])
    for (let day = FIRST_DAY; day < FIRST_DAY + 1500; day += 1 + Math.floor(random() * 4)) {
      const amount = 1 + Math.floor(random() * 1000);
      for (const table of Object.keys(ROLLUP_TABLES) as RollupTable[]) {
        const sums = Object.fromEntries(ROLLUP_TABLES[table].sums.map((c) => [c, amount]));
        const row = { shop_id: shop.id, generation, bucket: day, ...keyOf[table], ...sums };
        // The rows of the 32-day levels the migration replaces, each adding the day's amount.
        for (const [level, bucket] of [
          [0, day],
          [1, Math.floor(day / 32)],
          [2, Math.floor(day / 1024)],
        ] as const) {
          const columns = Object.keys(row);
          await sql`insert into ${sql.table(table)} (level, ${sql.join(columns.map((c) => sql.id(c)))})
            values (${level}, ${sql.join(columns.map((c) => (c === 'bucket' ? bucket : row[c as keyof typeof row])))})
            on conflict do nothing`.execute(db);
          if (level > 0) {
            const [measure] = ROLLUP_TABLES[table].sums;
            await sql`update ${sql.table(table)} set ${sql.id(measure!)} = ${sql.id(measure!)} + ${amount}
              where shop_id = ${shop.id} and generation = ${generation} and level = ${level} and bucket = ${bucket}`.execute(
              db,
            );
          }
        }
      }
      days.set(`${generation}|${day}`, amount);
    }

  await up(db as Kysely<unknown>);

  const levels = await sql<{
    level: number;
  }>`select distinct level from rollup_products where shop_id = ${shop.id} order by level`.execute(db);
  assert.deepEqual(
    levels.rows.map((r) => Number(r.level)),
    Array.from({ length: LEVELS }, (_, i) => i),
  );
  assert.equal(BLOCK, 8);
  for (let i = 0; i < 60; i++) {
    const generation = 1 + (i % 2);
    const first = FIRST_DAY - 10 + Math.floor(random() * 1600);
    const last = first + Math.floor(random() * (i % 3 === 0 ? 1200 : 400));
    let expected = 0;
    for (let day = first; day <= last; day++) expected += days.get(`${generation}|${day}`) ?? 0;
    for (const table of Object.keys(ROLLUP_TABLES) as RollupTable[])
      assert.equal(
        await sumOfBuckets(db, table, shop.id, generation, first, last),
        expected,
        `${table} ${generation} ${first}…${last}`,
      );
  }
});

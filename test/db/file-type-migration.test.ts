import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest, migrateUpTo } from '../../src/db/migrate.js';
import { freshConfig } from '../helpers/build.js';

/**
 * Migration 0026 lets variants be `file` variants. SQLite cannot alter the type check, so the
 * variants table is rebuilt: a catalog written before the migration must come through whole — its
 * variants, their indexes, and the serials that reference them (ON DELETE CASCADE: dropping the
 * old table with foreign keys on would have deleted them).
 */
test('migration 0026 allows file variants and keeps the variants, their serials and indexes', async (t) => {
  const config = await freshConfig(t, {}, { empty: true });
  const db = openDatabase(config.database);
  t.after(() => db.destroy());
  const k = db.kysely;
  await migrateUpTo(k, '0025-rollup-blocks-of-8');
  const now = Date.now();
  await sql`insert into accounts (email, created_at) values ('old@example.com', ${now})`.execute(k);
  const accountId = Number((await sql<{ id: number }>`select id from accounts`.execute(k)).rows[0]!.id);
  await sql`insert into shops (account_id, name, subdomain, currency, created_at, updated_at)
    values (${accountId}, 'Old', 'old', 'USD', ${now}, ${now})`.execute(k);
  const shopId = Number((await sql<{ id: number }>`select id from shops`.execute(k)).rows[0]!.id);
  await sql`insert into products (shop_id, title, description, path, created_at, updated_at) values (${shopId}, 'Key', '', 'key', ${now}, ${now})`.execute(
    k,
  );
  const productId = Number((await sql<{ id: number }>`select id from products`.execute(k)).rows[0]!.id);
  await sql`insert into product_variants (shop_id, product_id, position, title, price, product_type, available_serials, created_at, updated_at)
    values (${shopId}, ${productId}, 0, 'Key', 100, 'serials', 2, ${now}, ${now})`.execute(k);
  const variantId = Number((await sql<{ id: number }>`select id from product_variants`.execute(k)).rows[0]!.id);
  for (const value of ['A', 'B'])
    await sql`insert into serials (shop_id, variant_id, value, created_at) values (${shopId}, ${variantId}, ${value}, ${now})`.execute(
      k,
    );
  await assert.rejects(
    sql`insert into product_variants (shop_id, product_id, position, title, price, product_type, created_at, updated_at)
      values (${shopId}, ${productId}, 1, 'File', 100, 'file', ${now}, ${now})`.execute(k),
    'before 0026 a file variant breaks the type check',
  );

  await migrateToLatest(k);

  const serials = await sql<{
    value: string;
    variant_id: number;
  }>`select value, variant_id from serials order by value`.execute(k);
  assert.deepEqual(
    serials.rows.map((r) => [r.value, Number(r.variant_id)]),
    [
      ['A', variantId],
      ['B', variantId],
    ],
  );
  const variant = (
    await sql<{ product_type: string; available_serials: number; license_enabled: number }>`
    select product_type, available_serials, license_enabled from product_variants where id = ${variantId}`.execute(k)
  ).rows[0]!;
  assert.deepEqual(
    {
      ...variant,
      available_serials: Number(variant.available_serials),
      license_enabled: Number(variant.license_enabled),
    },
    {
      product_type: 'serials',
      available_serials: 2,
      license_enabled: 0,
    },
  );
  await sql`insert into product_variants (shop_id, product_id, position, title, price, product_type, created_at, updated_at)
    values (${shopId}, ${productId}, 1, 'File', 100, 'file', ${now}, ${now})`.execute(k);
  await assert.rejects(
    sql`insert into product_variants (shop_id, product_id, position, title, price, product_type, created_at, updated_at)
      values (${shopId}, ${productId}, 2, 'Other', 100, 'other', ${now}, ${now})`.execute(k),
    'the check still refuses an unknown type',
  );
  // Foreign keys are on again and still cascade from the rebuilt table.
  await sql`delete from product_variants where id = ${variantId}`.execute(k);
  assert.equal((await sql`select * from serials`.execute(k)).rows.length, 0);
  if (config.database.dialect === 'sqlite') {
    const indexes = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'index' and tbl_name = 'product_variants' and sql is not null`.execute(
      k,
    );
    assert.ok(indexes.rows.length > 0, 'the variants keep their indexes');
    assert.equal((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(k)).rows[0]!.foreign_keys, 1);
  }
});

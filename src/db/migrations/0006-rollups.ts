import { type Kysely, sql } from 'kysely';
import { rebuildRollups } from '../../modules/dashboards/rollups.js';
import type { Database } from '../schema.js';

/**
 * Dashboard rollups (issue 7, T5/T6): cumulative snapshots per shop-local day, maintained in the
 * transactions that change the orders, so a dashboard over a year reads a few hundred rows instead
 * of every invoice; the repeat-purchase flag they roll up; and the indexes the filtered invoice
 * list and the partial edge days of a dashboard range need. See src/modules/dashboards/rollups.ts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Which rollups a shop has and the UTC offset they are keyed by; its row is the per-shop lock
  // that writers of the rollups take (PostgreSQL), so a timezone change can rebuild them safely.
  await db.schema
    .createTable('rollup_state')
    .addColumn('shop_id', 'integer', (c) => c.primaryKey().references('shops.id').onDelete('cascade'))
    .addColumn('utc_offset_minutes', 'integer', (c) => c.notNull())
    .execute();

  // Every figure is cumulative: the row of day d holds the total up to the end of local day d.
  await db.schema
    .createTable('rollup_days')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('created_orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_pending', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_completed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('revenue', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('units_sold', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('repeat_orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('new_customers', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('feedbacks', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('replacements', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('replaced_units', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('rollup_days_pk', ['shop_id', 'day'])
    .execute();

  await db.schema
    .createTable('rollup_products')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('last_part_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_products_pk', ['shop_id', 'day', 'product_id'])
    .execute();

  await db.schema
    .createTable('rollup_hours')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('hour', 'integer', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_hours_pk', ['shop_id', 'day', 'hour'])
    .execute();

  await db.schema
    .createTable('rollup_gateways')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_gateways_pk', ['shop_id', 'day', 'gateway'])
    .execute();

  await db.schema
    .createTable('rollup_invoice_counts')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('invoices', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_invoice_counts_pk', ['shop_id', 'day', 'status', 'gateway'])
    .execute();

  // 1 when the customer had completed an invoice before this one; decided at completion.
  await db.schema.alterTable('invoices').addColumn('repeat_purchase', 'integer').execute();

  // The owner list filtered by status and gateway, newest first: one index range scan.
  await db.schema
    .createIndex('invoices_shop_status_gateway_created_idx')
    .on('invoices')
    .columns(['shop_id', 'status', 'gateway', 'created_at', 'id'])
    .execute();
  // The partial first and last days of a dashboard range are read from the raw rows.
  await db.schema
    .createIndex('invoices_shop_completed_idx')
    .on('invoices')
    .columns(['shop_id', 'completed_at'])
    .execute();
  // Time first: SQLite (without statistics) would otherwise prefer a (shop_id, …) index to the
  // invoice_id one when listing an invoice's replacements.
  await db.schema
    .createIndex('invoice_replacements_created_idx')
    .on('invoice_replacements')
    .columns(['created_at', 'shop_id'])
    .execute();

  // Existing shops: repeat flags from their order history, then their rollups.
  const shops = await sql<{ id: number }>`select id from shops order by id`.execute(db);
  for (const shop of shops.rows) await rebuildRollups(db as Kysely<Database>, Number(shop.id));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('invoice_replacements_created_idx').execute();
  await db.schema.dropIndex('invoices_shop_completed_idx').execute();
  await db.schema.dropIndex('invoices_shop_status_gateway_created_idx').execute();
  await db.schema.alterTable('invoices').dropColumn('repeat_purchase').execute();
  for (const table of [
    'rollup_invoice_counts',
    'rollup_gateways',
    'rollup_hours',
    'rollup_products',
    'rollup_days',
    'rollup_state',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}

import { type Kysely, sql } from 'kysely';
import { withId } from '../migration-helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('accounts'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('api_keys'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').column('account_id').execute();

  await withId(db, db.schema.createTable('shops'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subdomain', 'text', (c) => c.notNull().unique())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('on_hold', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('popup', 'text')
    .addColumn('terms', 'text')
    .addColumn('utc_offset_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('password_hash', 'text')
    .addColumn('affiliate_bps', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invoice_lifetime_minutes', 'integer', (c) => c.notNull().defaultTo(60))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('shops_offset_range', sql`utc_offset_minutes between -720 and 840`)
    .addCheckConstraint('shops_affiliate_range', sql`affiliate_bps between 0 and 10000`)
    .execute();
  await db.schema.createIndex('shops_account_idx').on('shops').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('payment_settings')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('block_vpn', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('public_fields', 'text', (c) => c.notNull())
    .addColumn('secret_fields', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_settings_pk', ['shop_id', 'provider'])
    .execute();

  await db.schema
    .createTable('shop_designs')
    .addColumn('shop_id', 'integer', (c) => c.primaryKey().references('shops.id').onDelete('cascade'))
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('idempotency_keys'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('shop_id', 'integer', (c) => c.references('shops.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('idempotency_keys_scope_key', ['scope', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}

import type { Kysely } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * The storefront's customer area (issue 21): a buyer signs in with a one-time code mailed to
 * them, no password. `customer_sign_in_codes` keeps each code as its sha256 (never the code),
 * with its expiry, the tries it has had and when it was used; codes are looked up by the shop and
 * the e-mail (lower-case), newest first. `customer_sessions` keeps each session token as its
 * sha256, found by (shop, hash) — a token opens one shop only; the (shop, e-mail) index serves
 * the removal of a customer's expired sessions. The `created_at` and `expires_at` indexes serve
 * the hourly sweep of dead codes and sessions of every shop.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('customer_sign_in_codes'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_sign_in_codes_email_idx')
    .on('customer_sign_in_codes')
    .columns(['shop_id', 'email', 'created_at'])
    .execute();
  await db.schema
    .createIndex('customer_sign_in_codes_created_idx')
    .on('customer_sign_in_codes')
    .column('created_at')
    .execute();

  await withId(db, db.schema.createTable('customer_sessions'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_sessions_token_idx')
    .on('customer_sessions')
    .columns(['shop_id', 'token_hash'])
    .unique()
    .execute();
  await db.schema
    .createIndex('customer_sessions_email_idx')
    .on('customer_sessions')
    .columns(['shop_id', 'email', 'expires_at'])
    .execute();
  await db.schema.createIndex('customer_sessions_expiry_idx').on('customer_sessions').column('expires_at').execute();
}

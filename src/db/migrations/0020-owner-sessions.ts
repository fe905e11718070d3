import type { Kysely } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * The owner's sign-in to the web admin (issue 22). `accounts.password_hash` is a scrypt hash
 * (null: the account has no password yet, only API keys) and `password_changed_at` when it was
 * last set. `api_keys` gains an owner's `label` and `last_used_at` (written at most once a minute
 * per key). `owner_sessions` keeps each session token as its sha256, found by that hash (unique);
 * the account index serves ending an account's sessions, the `expires_at` index the hourly sweep.
 * `owner_password_tokens` are one-time links to set a password, kept as their sha256 too, with
 * their expiry and when they were used; indexed by account (retiring an account's links) and by
 * expiry (the sweep).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('password_hash', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('password_changed_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('label', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();

  await withId(db, db.schema.createTable('owner_sessions'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('owner_sessions_token_idx').on('owner_sessions').column('token_hash').unique().execute();
  await db.schema.createIndex('owner_sessions_account_idx').on('owner_sessions').column('account_id').execute();
  await db.schema.createIndex('owner_sessions_expiry_idx').on('owner_sessions').column('expires_at').execute();

  await withId(db, db.schema.createTable('owner_password_tokens'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('owner_password_tokens_token_idx')
    .on('owner_password_tokens')
    .column('token_hash')
    .unique()
    .execute();
  await db.schema
    .createIndex('owner_password_tokens_account_idx')
    .on('owner_password_tokens')
    .column('account_id')
    .execute();
  await db.schema
    .createIndex('owner_password_tokens_expiry_idx')
    .on('owner_password_tokens')
    .column('expires_at')
    .execute();
}

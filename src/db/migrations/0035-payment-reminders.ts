import type { Kysely } from 'kysely';

/**
 * One reminder mail before an unpaid order expires (issue 37, item 6): `invoices.remind_at` is
 * when it is due (set at checkout, null when the order gets none or once it went out),
 * `reminded_at` when it was queued. Orders placed before this migration get none. The index finds
 * the due ones of every shop in one lookup, as (status, expires_at) does for expiry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('remind_at', 'bigint').execute();
  await db.schema.alterTable('invoices').addColumn('reminded_at', 'bigint').execute();
  await db.schema
    .createIndex('invoices_status_remind_at_idx')
    .on('invoices')
    .columns(['status', 'remind_at'])
    .execute();
}

import type { Kysely } from 'kysely';

/**
 * A shop's protection against abuse of its public flows (issue 36): how long unpaid orders hold
 * stock, how much one client may hold, velocity limits, mail budgets
 * and what a payment dispute does. One row per shop, written on the owner's first change; a shop
 * without one has the defaults of src/modules/protection/schema.ts, which these column defaults
 * repeat so that a row written with only some columns reads the same.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shop_protection')
    .addColumn('shop_id', 'integer', (c) => c.primaryKey().references('shops.id').onDelete('cascade'))
    .addColumn('hold_minutes_hosted', 'integer', (c) => c.notNull().defaultTo(15))
    .addColumn('units_per_client', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('pending_per_client', 'integer', (c) => c.notNull().defaultTo(3))
    .addColumn('hosted_checkouts_per_hour', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('mail_per_recipient_hour', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('mail_per_client_hour', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('mail_per_shop_day', 'integer', (c) => c.notNull().defaultTo(2000))
    .addColumn('dispute_blacklist', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('dispute_auto_submit', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

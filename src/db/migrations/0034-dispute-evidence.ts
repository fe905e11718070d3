import type { Kysely } from 'kysely';

/**
 * What a dispute's evidence still lacked (issue 36, item 7):
 * - `license_activations.ip` and `user_agent`: who activated a licence from where, as downloads
 *   and invoice views already record it;
 * - the terms of service the order was placed under: `invoice_terms` keeps each version of a shop's
 *   terms once (by its SHA-256), and `invoices.terms_hash` names the version in force at checkout;
 * - an index for finding the order a provider's dispute names by its payment reference.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('license_activations').addColumn('ip', 'text').execute();
  await db.schema.alterTable('license_activations').addColumn('user_agent', 'text').execute();
  await db.schema
    .createTable('invoice_terms')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('invoice_terms_pk', ['shop_id', 'hash'])
    .execute();
  await db.schema.alterTable('invoices').addColumn('terms_hash', 'text').execute();
  await db.schema
    .createIndex('invoices_shop_payment_reference_idx')
    .on('invoices')
    .columns(['shop_id', 'payment_reference'])
    .execute();
}

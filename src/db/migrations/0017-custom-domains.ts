import type { Kysely } from 'kysely';

/**
 * Custom domains (issue 21): an owner may serve the shop's storefront at a host of their own
 * (`shops.custom_domain`, a lower-case hostname, null when unset). A host leads to one shop only:
 * the unique index refuses a second shop with the same domain, and admits any number of nulls on
 * both engines. It also serves the storefront's lookup of a request's Host.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shops').addColumn('custom_domain', 'text').execute();
  await db.schema.createIndex('shops_custom_domain_idx').on('shops').column('custom_domain').unique().execute();
}

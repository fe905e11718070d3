import type { Kysely } from 'kysely';

/**
 * Subdomains a shop gave up, held for its account for a while (issue 36, L8): a released
 * subdomain could be claimed by another owner at once, who then received the visitors, links and
 * mails still pointing at it. One row per subdomain; `held_until` is when anyone may take it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('released_subdomains')
    .addColumn('subdomain', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('released_at', 'bigint', (c) => c.notNull())
    .addColumn('held_until', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('released_subdomains_shop_idx').on('released_subdomains').column('shop_id').execute();
}

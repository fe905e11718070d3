import type { Kysely } from 'kysely';

/**
 * Languages (issue 37, item 1): a shop's default language for its storefront and mails
 * (`shops.language`, English for every shop so far), and the language a buyer used when placing
 * an order or opening a ticket (`invoices.locale`, `tickets.locale`), in which their later mails
 * are written; null for those made before this migration, which get the shop's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shops')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .execute();
  await db.schema.alterTable('invoices').addColumn('locale', 'text').execute();
  await db.schema.alterTable('tickets').addColumn('locale', 'text').execute();
}

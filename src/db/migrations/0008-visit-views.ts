import type { Kysely } from 'kysely';

/**
 * Page views are stored aggregated (issue 7): one row per shop, visitor, page and minute with the
 * number of views, instead of a row per view. A storefront under load writes a handful of rows
 * per batch rather than thousands; the real-time figures are sums of `views`. Existing rows are
 * one view each.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('visits')
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

import { type Kysely, sql } from 'kysely';

/**
 * A serial variant's stock as a maintained number (issue 7). Stock was counted from the serials
 * on every read: an index count over every available serial of the listed variants, which grows
 * with the stock (0.7 ms for a shop holding 300,000 keys, on each main page built). Every write
 * that makes a serial available or takes one away changes `available_serials` by as much, in the
 * same transaction (products/repository.ts, invoices/repository.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('product_variants')
    .addColumn('available_serials', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`
    update product_variants set available_serials = (
      select count(*) from serials s
      where s.shop_id = product_variants.shop_id and s.variant_id = product_variants.id and s.status = 'available')`.execute(
    db,
  );
}

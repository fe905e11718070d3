import { type Kysely, sql } from 'kysely';

/**
 * A product page reads its newest feedbacks and their totals (issue 7). Through
 * `feedback_products (shop_id, product_id, feedback_id)` that meant fetching every feedback of
 * the product and sorting them: a product with thousands of feedbacks paid for all of them on
 * each page. The index rows now carry the feedback's `created_at` (never changed once written)
 * and `rating`, in index order: the newest page is the first entries of one index range, and the
 * count and rating sum are read from the index alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('feedback_products')
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('feedback_products')
    .addColumn('rating', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`
    update feedback_products set
      created_at = (select f.created_at from feedbacks f where f.id = feedback_products.feedback_id),
      rating = (select f.rating from feedbacks f where f.id = feedback_products.feedback_id)`.execute(db);
  await db.schema.dropIndex('feedback_products_product_idx').execute();
  await db.schema
    .createIndex('feedback_products_product_created_idx')
    .on('feedback_products')
    .columns(['shop_id', 'product_id', 'created_at', 'feedback_id', 'rating'])
    .execute();
}

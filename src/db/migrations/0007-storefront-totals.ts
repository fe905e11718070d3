import { type Kysely, sql } from 'kysely';

/**
 * What the storefront shows on every page without counting it each time (issue 7): per-shop
 * totals (feedbacks and their rating sum, customers with a completed order), maintained in the
 * transactions that change them, and which products each feedback is about, so a product page
 * reads its feedbacks through an index instead of searching every feedback's invoice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shop_totals')
    .addColumn('shop_id', 'integer', (c) => c.primaryKey().references('shops.id').onDelete('cascade'))
    .addColumn('feedbacks', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('buyers', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`
    insert into shop_totals (shop_id, feedbacks, rating_sum, buyers)
    select s.id,
      (select count(*) from feedbacks f where f.shop_id = s.id),
      (select coalesce(sum(f.rating), 0) from feedbacks f where f.shop_id = s.id),
      (select count(*) from customers c where c.shop_id = s.id and c.orders_count > 0)
    from shops s`.execute(db);

  await db.schema
    .createTable('feedback_products')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('feedback_id', 'integer', (c) => c.notNull().references('feedbacks.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('feedback_products_pk', ['feedback_id', 'product_id'])
    .execute();
  await db.schema
    .createIndex('feedback_products_product_idx')
    .on('feedback_products')
    .columns(['shop_id', 'product_id', 'feedback_id'])
    .execute();
  await sql`
    insert into feedback_products (shop_id, feedback_id, product_id)
    select distinct f.shop_id, f.id, p.product_id
    from feedbacks f join invoice_parts p on p.invoice_id = f.invoice_id`.execute(db);

  // Expiry and cancellation release an invoice's reserved serials by invoice: without this
  // index that update read every serial of the shop.
  await db.schema.createIndex('serials_invoice_idx').on('serials').columns(['invoice_id']).execute();

  // Feedbacks hidden by an accepted appeal are subtracted from the totals when they are read.
  await db.schema
    .createIndex('feedback_appeals_status_idx')
    .on('feedback_appeals')
    .columns(['shop_id', 'status', 'feedback_id'])
    .execute();
}

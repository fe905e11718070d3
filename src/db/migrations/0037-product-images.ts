import type { Kysely } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * A product's gallery (issue 37, item 2): images besides its thumbnail, in the owner's order, each
 * with its description for people who cannot see it. `name` is the stored upload's (src/http/uploads).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('product_images'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('alt', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('product_images_product_idx')
    .on('product_images')
    .columns(['shop_id', 'product_id', 'position'])
    .execute();
}

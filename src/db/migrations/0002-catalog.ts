import { type Kysely, sql } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * The catalog: products and their variants, serial stock, groups, listings and categories.
 * Products are soft-deleted (`deleted_at`) so invoices and reserved serials keep what they
 * point at; their paths are unique only among live products.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('products'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('short_description', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('seo_meta_title', 'text')
    .addColumn('seo_meta_description', 'text')
    .addColumn('seo_image', 'text')
    .addColumn('thumbnail', 'text')
    .addColumn('unlisted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('private', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('on_hold', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_internal', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('customer_note', 'text')
    .addColumn('chat_integration', 'text')
    .addColumn('min_price', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sold_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('products_shop_created_idx')
    .on('products')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('products_shop_path_live_idx')
    .on('products')
    .columns(['shop_id', 'path'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await withId(db, db.schema.createTable('product_variants'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('service_text', 'text')
    .addColumn('dynamic_url', 'text')
    /** Remaining stock of service and dynamic variants; null = unlimited. Serials count rows. */
    .addColumn('stock', 'integer')
    .addColumn('serial_delimiter', 'text')
    .addColumn('remove_duplicates', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('min_amount', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('max_amount', 'integer')
    .addColumn('gateways', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('customer_note', 'text')
    .addColumn('redirect_url', 'text')
    .addColumn('warranty_text', 'text')
    .addColumn('warranty_seconds', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addCheckConstraint('product_variants_type', sql`product_type in ('serials', 'service', 'dynamic')`)
    .addCheckConstraint('product_variants_price', sql`price > 0`)
    .addCheckConstraint('product_variants_stock', sql`stock is null or stock >= 0`)
    .execute();
  await db.schema
    .createIndex('product_variants_product_idx')
    .on('product_variants')
    .columns(['shop_id', 'product_id', 'position'])
    .execute();

  await withId(db, db.schema.createTable('serials'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('variant_id', 'integer', (c) => c.notNull().references('product_variants.id').onDelete('cascade'))
    .addColumn('value', 'text', (c) => c.notNull())
    /** available → reserved (pending invoice) → delivered; reserved → available on expiry. */
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('available'))
    .addColumn('invoice_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addCheckConstraint('serials_status', sql`status in ('available', 'reserved', 'delivered')`)
    .execute();
  await db.schema
    .createIndex('serials_variant_status_idx')
    .on('serials')
    .columns(['shop_id', 'variant_id', 'status', 'id'])
    .execute();

  await withId(db, db.schema.createTable('product_groups'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('list'))
    .addColumn('main', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('thumbnail', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('product_groups_type', sql`type in ('list', 'dropdown')`)
    .addUniqueConstraint('product_groups_shop_path', ['shop_id', 'path'])
    .execute();

  await db.schema
    .createTable('group_products')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('product_groups.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('group_products_pk', ['group_id', 'product_id'])
    .execute();
  await db.schema
    .createIndex('group_products_product_idx')
    .on('group_products')
    .columns(['shop_id', 'product_id'])
    .execute();

  await withId(db, db.schema.createTable('listings'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.references('products.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('product_groups.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint(
      'listings_target',
      sql`(type = 'product' and product_id is not null and group_id is null) or (type = 'group' and group_id is not null and product_id is null)`,
    )
    .addUniqueConstraint('listings_product', ['product_id'])
    .addUniqueConstraint('listings_group', ['group_id'])
    .execute();
  await db.schema
    .createIndex('listings_shop_position_idx')
    .on('listings')
    .columns(['shop_id', 'position', 'id'])
    .execute();

  await withId(db, db.schema.createTable('categories'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('categories_shop_idx')
    .on('categories')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('category_listings')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('category_id', 'integer', (c) => c.notNull().references('categories.id').onDelete('cascade'))
    .addColumn('listing_id', 'integer', (c) => c.notNull().references('listings.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('category_listings_pk', ['category_id', 'listing_id'])
    .execute();
}

import { type Kysely, sql } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * Orders and money: customers and their balance ledger, invoices with their parts and
 * replacements, coupons, the blacklist, and the two outboxes written in the same transactions
 * as the changes that cause them (mail to send, events for webhooks).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('customers'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total_spent', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('referral_code', 'text', (c) => c.notNull().unique())
    .addColumn('referral_disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_order_at', 'bigint')
    .addUniqueConstraint('customers_shop_email', ['shop_id', 'email'])
    .addCheckConstraint('customers_balance_non_negative', sql`balance >= 0`)
    .execute();
  await db.schema
    .createIndex('customers_shop_created_idx')
    .on('customers')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('customer_ips')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
    .addPrimaryKeyConstraint('customer_ips_pk', ['customer_id', 'ip'])
    .execute();

  await withId(db, db.schema.createTable('balance_entries'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    /** Signed minor units: credits positive, debits negative. */
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('invoice_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('balance_entries_customer_idx')
    .on('balance_entries')
    .columns(['shop_id', 'customer_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('coupons'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** Lower-cased name: codes are unique per shop without regard to case. */
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('is_fixed', 'integer', (c) => c.notNull())
    /** Fixed: minor units. Percentage: basis points (1234 = 12.34 %). */
    .addColumn('discount', 'bigint', (c) => c.notNull())
    .addColumn('start_at', 'bigint')
    .addColumn('end_at', 'bigint')
    .addColumn('restrict_products', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('restrict_gateways', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('max_uses', 'integer')
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('coupons_shop_name', ['shop_id', 'name_key'])
    .addCheckConstraint('coupons_uses', sql`uses >= 0 and (max_uses is null or uses <= max_uses)`)
    .execute();

  await withId(db, db.schema.createTable('blacklist'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    /** Normalised: e-mail lower-case, IP or CIDR canonical, country upper-case. */
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('blacklist_type', sql`type in ('email', 'ip', 'country')`)
    .execute();
  await db.schema.createIndex('blacklist_shop_type_idx').on('blacklist').columns(['shop_id', 'type', 'data']).execute();

  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('customer_email', 'text', (c) => c.notNull())
    .addColumn('coupon_id', 'integer', (c) => c.references('coupons.id').onDelete('set null'))
    .addColumn('coupon_code', 'text')
    .addColumn('subtotal', 'bigint', (c) => c.notNull())
    .addColumn('discount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('country', 'text')
    .addColumn('affiliate_code', 'text')
    .addColumn('affiliate_customer_id', 'integer', (c) => c.references('customers.id').onDelete('set null'))
    .addColumn('commission', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('delivery_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addCheckConstraint('invoices_status', sql`status in ('pending', 'completed', 'expired', 'cancelled')`)
    .addCheckConstraint(
      'invoices_amounts',
      sql`subtotal >= 0 and discount >= 0 and total >= 0 and total = subtotal - discount`,
    )
    .execute();
  await db.schema
    .createIndex('invoices_shop_created_idx')
    .on('invoices')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('invoices_shop_status_created_idx')
    .on('invoices')
    .columns(['shop_id', 'status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('invoices_shop_customer_idx')
    .on('invoices')
    .columns(['shop_id', 'customer_id', 'created_at'])
    .execute();
  await db.schema.createIndex('invoices_pending_expiry_idx').on('invoices').columns(['status', 'expires_at']).execute();
  await db.schema
    .createIndex('invoices_affiliate_idx')
    .on('invoices')
    .columns(['shop_id', 'affiliate_customer_id'])
    .execute();

  await withId(db, db.schema.createTable('invoice_parts'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    /** No foreign keys to the catalog: the part is the invoice's own copy of what was sold. */
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('variant_id', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('variant_title', 'text', (c) => c.notNull())
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('deliverables', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('invoice_parts_quantity', sql`quantity > 0`)
    .execute();
  await db.schema.createIndex('invoice_parts_invoice_idx').on('invoice_parts').columns(['invoice_id', 'id']).execute();
  await db.schema
    .createIndex('invoice_parts_product_idx')
    .on('invoice_parts')
    .columns(['shop_id', 'product_id'])
    .execute();

  await withId(db, db.schema.createTable('invoice_replacements'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('part_id', 'integer', (c) => c.notNull().references('invoice_parts.id').onDelete('cascade'))
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('deliverables', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('invoice_replacements_invoice_idx')
    .on('invoice_replacements')
    .columns(['invoice_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('mail_outbox'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addCheckConstraint('mail_outbox_status', sql`status in ('pending', 'sending', 'sent', 'failed')`)
    .execute();
  await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_shop_created_idx').on('events').columns(['shop_id', 'created_at']).execute();
}

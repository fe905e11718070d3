import { type Kysely, sql } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * Support and content: FAQs, announcements, feedbacks and their appeals, tickets and their
 * messages, and page visits for real-time analytics (a hashed visitor, never a raw IP).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('faqs'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('faqs_shop_position_idx').on('faqs').columns(['shop_id', 'position', 'id']).execute();

  await withId(db, db.schema.createTable('announcements'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('short_description', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('unlisted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('private', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('button_text', 'text')
    .addColumn('button_link', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('announcements_shop_path', ['shop_id', 'path'])
    .execute();
  await db.schema
    .createIndex('announcements_shop_created_idx')
    .on('announcements')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();

  await withId(db, db.schema.createTable('feedbacks'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull().unique().references('invoices.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('rating', 'integer', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('answer', 'text')
    .addColumn('answered_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('feedbacks_rating', sql`rating between 1 and 5`)
    .execute();
  await db.schema
    .createIndex('feedbacks_shop_created_idx')
    .on('feedbacks')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();

  await withId(db, db.schema.createTable('feedback_appeals'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('feedback_id', 'integer', (c) => c.notNull().references('feedbacks.id').onDelete('cascade'))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('resolved_at', 'bigint')
    .addCheckConstraint('feedback_appeals_status', sql`status in ('open', 'accepted', 'rejected')`)
    .execute();
  // One open appeal per feedback, enforced by the database.
  await db.schema
    .createIndex('feedback_appeals_one_open_idx')
    .on('feedback_appeals')
    .column('feedback_id')
    .unique()
    .where(sql.ref('status'), '=', 'open')
    .execute();
  await db.schema
    .createIndex('feedback_appeals_shop_idx')
    .on('feedback_appeals')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();

  await withId(db, db.schema.createTable('tickets'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.references('invoices.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    /** SHA-256 of the customer's access key; the key is shown once, at creation. */
    .addColumn('access_key_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('tickets_status', sql`status in ('open', 'answered', 'closed')`)
    .execute();
  await db.schema
    .createIndex('tickets_shop_status_idx')
    .on('tickets')
    .columns(['shop_id', 'status', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('tickets_shop_created_idx')
    .on('tickets')
    .columns(['shop_id', 'created_at', 'id'])
    .execute();

  await withId(db, db.schema.createTable('ticket_messages'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('ticket_id', 'integer', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('ticket_messages_author', sql`author in ('customer', 'shop')`)
    .execute();
  await db.schema
    .createIndex('ticket_messages_ticket_idx')
    .on('ticket_messages')
    .columns(['ticket_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('visits'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    /** SHA-256 of shop, IP and user agent: counts distinct visitors without keeping the IP. */
    .addColumn('visitor', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('visits_shop_created_idx').on('visits').columns(['shop_id', 'created_at']).execute();
}

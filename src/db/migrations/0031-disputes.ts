import type { Kysely } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * Payment disputes (issue 36, item 7). `disputes`: one row per dispute the provider reported
 * (Stripe's `charge.dispute.*`), found by its id on every later event; the invoice keeps its own
 * status, the dispute is beside it. `evidence` is the JSON submitted to the provider, kept with
 * when it was. `invoice_views`: every view of an invoice by its buyer (the public invoice API and
 * the storefront invoice page), with IP and user agent: evidence that the buyer received what
 * was delivered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('disputes'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_dispute_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('evidence_submitted_at', 'bigint')
    .addColumn('evidence', 'text')
    .addColumn('submit_error', 'text')
    .addUniqueConstraint('disputes_provider_dispute_unique', ['provider', 'provider_dispute_id'])
    .execute();
  await db.schema.createIndex('disputes_shop_idx').on('disputes').columns(['shop_id', 'created_at']).execute();
  await db.schema.createIndex('disputes_shop_invoice_idx').on('disputes').columns(['shop_id', 'invoice_id']).execute();
  await withId(db, db.schema.createTable('invoice_views'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema
    .createIndex('invoice_views_shop_invoice_idx')
    .on('invoice_views')
    .columns(['shop_id', 'invoice_id', 'at'])
    .execute();
}

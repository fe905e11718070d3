import { type Kysely, sql } from 'kysely';
import { withId } from '../migration-helpers.js';

/**
 * Real payments (issue 23).
 *
 * - `invoices` gains what a payment leaves on it: `payment_ref`, the provider's id of the hosted
 *   payment started for it (a Stripe Checkout Session, a crypto charge), `payment_url`, the page
 *   the buyer pays on, and `payment_closes_at`, when that page closes; `payment_source`, who
 *   confirmed the payment (`provider`, `owner`, `balance`); `payment_reference`, what identifies
 *   the money received (the provider's payment id, or the reference the owner typed when
 *   confirming a manual payment);
 *   `payment_note`, what the owner must look at (an underpayment, a payment of another amount);
 *   `refunded`, the minor units refunded so far.
 * - `payment_events`: every provider callback claimed (`handling`) and applied (its outcome), keyed
 *   by the provider's event id per shop, so a callback delivered twice is applied once; indexed by
 *   time for the hourly sweep of old ones.
 * - `invoice_refunds`: each refund with its amount, reason, how it was made, the provider's id and
 *   its status (`pending` while the provider is asked, then `succeeded`).
 * - `rollup_totals` counts refunds and the refunded amount by local day.
 * - `virtual-payments` and `cardreader` have no adapter: any shop that enabled them (a switch that
 *   did nothing) has them turned off; enabling them is now refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['payment_ref', 'payment_url', 'payment_reference', 'payment_note', 'payment_source'])
    await db.schema.alterTable('invoices').addColumn(column, 'text').execute();
  await db.schema.alterTable('invoices').addColumn('payment_closes_at', 'bigint').execute();
  await db.schema
    .alterTable('invoices')
    .addColumn('refunded', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('payment_events')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_events_pk', ['shop_id', 'provider', 'event_id'])
    .execute();
  // The hourly sweep of applied events past their retention.
  await db.schema.createIndex('payment_events_created_idx').on('payment_events').column('created_at').execute();

  await withId(db, db.schema.createTable('invoice_refunds'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider_refund_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('invoice_refunds_invoice_idx')
    .on('invoice_refunds')
    .columns(['invoice_id', 'id'])
    .execute();
  await db.schema
    .createIndex('invoice_refunds_shop_created_idx')
    .on('invoice_refunds')
    .columns(['shop_id', 'created_at'])
    .execute();

  for (const column of ['refunds', 'refunded'])
    await db.schema
      .alterTable('rollup_totals')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();

  await sql`update payment_settings set enabled = 0 where provider in ('virtual-payments', 'cardreader')`.execute(db);
}

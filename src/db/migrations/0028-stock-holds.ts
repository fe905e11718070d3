import type { Kysely } from 'kysely';

/**
 * Stock holds and card-testing velocity (issue 36). `invoices.client_net` is the client that
 * placed the order as abuse limits count it (src/http/client-net.ts: an IPv4 address, an IPv6
 * /64), written at checkout. Two indexes count a client's orders inside the checkout: its pending
 * orders (and through their parts the units they hold), and its orders of the last hour (the
 * velocity limit on card and crypto checkouts). The customer's side of both counts uses
 * `invoices_shop_customer_idx` (shop_id, customer_id, created_at). Orders placed before this
 * migration have no client_net: they are counted by their customer only.
 *
 * `invoices.payment_page_ends_at`: when the provider's payment page of a card or crypto order
 * closes by itself, kept only when that is later than the order's hold (Stripe keeps a session
 * open 30 minutes at least; a shop may hold stock 15): once the order has expired, the
 * invoice-expiry job closes such a page at the provider and clears the column. Indexed for that
 * lookup (only a few rows have it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('client_net', 'text').execute();
  await db.schema
    .createIndex('invoices_shop_status_client_idx')
    .on('invoices')
    .columns(['shop_id', 'status', 'client_net'])
    .execute();
  await db.schema
    .createIndex('invoices_shop_client_created_idx')
    .on('invoices')
    .columns(['shop_id', 'client_net', 'created_at'])
    .execute();
  await db.schema.alterTable('invoices').addColumn('payment_page_ends_at', 'bigint').execute();
  await db.schema
    .createIndex('invoices_payment_page_ends_idx')
    .on('invoices')
    .columns(['payment_page_ends_at'])
    .execute();
}

import type { Kysely } from 'kysely';

/**
 * Issue 36 (M3, M4).
 *
 * `invoices.payment_code`: the short, non-secret reference a buyer quotes when paying by a manual
 * method (`K7Q2M9XD`, shown `K7Q2-M9XD`), so the invoice id (which opens the invoice and its
 * keys) never has to travel in a payment note. Unique per shop; written at checkout. The column
 * `payment_reference` (migration 0022) already names what identifies the money received, hence
 * another name. Orders placed before this migration have none and keep quoting nothing new.
 *
 * `shops.custom_domain_token`: the value the owner puts in the DNS TXT record
 * `_shopd-verify.<domain>` to prove the domain is theirs, random, made anew whenever the domain
 * changes. `shops.custom_domain_verified_at`: when that record was found (epoch ms); null until
 * then and again whenever the domain changes. A custom domain set before this migration has no
 * token yet: it gets one the first time the owner reads the shop, and is unverified meanwhile. /tls-ask approves a custom domain only once it is set, and reads it instead of asking
 * DNS on every call.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('payment_code', 'text').execute();
  await db.schema
    .createIndex('invoices_shop_payment_code_idx')
    .on('invoices')
    .columns(['shop_id', 'payment_code'])
    .unique()
    .execute();
  await db.schema.alterTable('shops').addColumn('custom_domain_token', 'text').execute();
  await db.schema.alterTable('shops').addColumn('custom_domain_verified_at', 'bigint').execute();
}

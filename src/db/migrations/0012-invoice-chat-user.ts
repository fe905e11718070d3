import type { Kysely } from 'kysely';

/**
 * The buyer's chat user id (issue 19): a product with chat integration enabled grants roles in
 * the owner's chat server, and the owner's bot needs to know whom to grant them to. Checkout
 * takes it (required when a product's integration says so) and the invoice keeps it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('chat_user_id', 'text').execute();
}

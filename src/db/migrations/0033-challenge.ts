import type { Kysely } from 'kysely';

/**
 * The proof-of-work challenge of the public flows (issue 36, item 2):
 * - `shop_protection.challenge` ('off', 'suspicious', 'always') and `challenge_threshold`: when a
 *   checkout, ticket or sign-in code needs a solved challenge (defaults as in
 *   src/modules/protection/schema.ts);
 * - `challenge_actions`: one row per such action a client took, its velocity (the actions of its
 *   address or IPv6 /64 in the shop in the last hour);
 * - `challenge_solutions`: each solved challenge spent, until it would have expired anyway, so
 *   one solution opens one action.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shop_protection')
    .addColumn('challenge', 'text', (c) => c.notNull().defaultTo('suspicious'))
    .execute();
  await db.schema
    .alterTable('shop_protection')
    .addColumn('challenge_threshold', 'integer', (c) => c.notNull().defaultTo(5))
    .execute();
  await db.schema
    .createTable('challenge_actions')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('client_net', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('challenge_actions_client_idx')
    .on('challenge_actions')
    .columns(['shop_id', 'client_net', 'created_at'])
    .execute();
  await db.schema.createIndex('challenge_actions_created_idx').on('challenge_actions').column('created_at').execute();
  await db.schema
    .createTable('challenge_solutions')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('challenge_solutions_pk', ['shop_id', 'nonce'])
    .execute();
  await db.schema
    .createIndex('challenge_solutions_expires_idx')
    .on('challenge_solutions')
    .column('expires_at')
    .execute();
}

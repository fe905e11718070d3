import type { Kysely } from 'kysely';

/**
 * Webhook deliveries are ordered per object, not per endpoint (issue 19, item 23): each
 * delivery carries the key of the object its event is about (`invoice:<id>`, `ticket:<id>`,
 * ...). A delivery waits only for older unfinished deliveries of its endpoint with the same
 * key; deliveries of other objects go out beside it. Rows from before this migration have no
 * key (null): such a row waits for every older one of its endpoint and holds back every newer
 * one, as all deliveries did before, so nothing queued at upgrade changes order.
 * The index serves "an older unfinished delivery of this endpoint with this key".
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('ordering_key', 'text').execute();
  await db.schema
    .createIndex('webhook_deliveries_order_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'ordering_key', 'status', 'id'])
    .execute();
}

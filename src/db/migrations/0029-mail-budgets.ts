import type { Kysely } from 'kysely';

/**
 * Mail budgets (issue 36, M2): a mail a buyer's action causes records the client it came from
 * (`client_net`: an IPv4 address, an IPv6 /64), so that mails per recipient, per client and per
 * shop can be counted over the last hour or day when the next one is queued. One index for each
 * count.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('client_net', 'text').execute();
  await db.schema
    .createIndex('mail_outbox_recipient_idx')
    .on('mail_outbox')
    .columns(['shop_id', 'to_address', 'created_at'])
    .execute();
  await db.schema
    .createIndex('mail_outbox_client_idx')
    .on('mail_outbox')
    .columns(['shop_id', 'client_net', 'created_at'])
    .execute();
  await db.schema
    .createIndex('mail_outbox_shop_created_idx')
    .on('mail_outbox')
    .columns(['shop_id', 'created_at'])
    .execute();
}

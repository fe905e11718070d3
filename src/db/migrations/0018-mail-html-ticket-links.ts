import type { Kysely } from 'kysely';

/**
 * Mail a buyer can act on (issue 21): every mail carries an HTML part next to its plain text
 * (`mail_outbox.body_html`, null for mail written before, which goes out as text alone), and a
 * ticket keeps its access key sealed with the server's key (`tickets.access_key_sealed`) besides
 * its hash, so a mail written later (the shop's answer) can carry the ticket's link. Tickets
 * opened before this migration have no sealed key: only their hash was ever kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('body_html', 'text').execute();
  await db.schema.alterTable('tickets').addColumn('access_key_sealed', 'text').execute();
}

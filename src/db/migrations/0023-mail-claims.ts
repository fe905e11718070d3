import type { Kysely } from 'kysely';

/**
 * Mail claims that survive a crash without a second copy going out blind (issue 33):
 *
 * - `claims`: how many times a worker claimed the row. Each claim is told apart by it, so a
 *   worker whose claim lapsed (and was taken over) can no longer renew, settle or release it.
 * - `message_id`: the `Message-ID` header, chosen at the row's first claim and kept, so every
 *   attempt of one mail carries the same one (mail systems drop copies by it).
 * - `transport_response`: what the SMTP server answered when it took the message (its queue id
 *   is usually in it), or where the `.eml` file was written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('mail_outbox')
    .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('mail_outbox').addColumn('message_id', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('transport_response', 'text').execute();
}

import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../database.js';
import { withId } from '../migration-helpers.js';

/**
 * A mail row may be `dropped`: decided but never to be sent (addresses under the `.invalid`
 * top-level domain, which never receive mail: the demo seed's fictitious customers). The worker
 * claims only `pending` rows, so a dropped row is never sent. SQLite cannot change a CHECK
 * constraint in place: the table is rebuilt with the same columns, rows and index.
 */
const STATUSES = (list: string[]) => sql.raw(list.map((s) => `'${s}'`).join(', '));

async function setStatuses(db: Kysely<unknown>, statuses: string[]): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table mail_outbox drop constraint mail_outbox_status`.execute(db);
    await sql`alter table mail_outbox add constraint mail_outbox_status check (status in (${STATUSES(statuses)}))`.execute(
      db,
    );
    return;
  }
  await withId(db, db.schema.createTable('mail_outbox_next'))
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addCheckConstraint('mail_outbox_status', sql`status in (${STATUSES(statuses)})`)
    .execute();
  const columns = sql.raw(
    'id, shop_id, to_address, subject, body_text, status, attempts, last_error, next_attempt_at, created_at, sent_at',
  );
  await sql`insert into mail_outbox_next (${columns}) select ${columns} from mail_outbox`.execute(db);
  // AUTOINCREMENT never reuses an id: the new table carries on from the old one's counter.
  const { rows } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'mail_outbox'`.execute(db);
  await db.schema.dropTable('mail_outbox').execute();
  await db.schema.alterTable('mail_outbox_next').renameTo('mail_outbox').execute();
  if (rows[0]) {
    await sql`delete from sqlite_sequence where name = 'mail_outbox'`.execute(db);
    await sql`insert into sqlite_sequence (name, seq) values ('mail_outbox', ${rows[0].seq})`.execute(db);
  }
  await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await setStatuses(db, ['pending', 'sending', 'sent', 'failed', 'dropped']);
}

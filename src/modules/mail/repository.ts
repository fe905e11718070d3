import type { Kysely } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { MailRow } from './mail.table.js';

type Conn = Kysely<Database>;

// Only insertMail is per shop. The other functions serve the outbox worker, which sends the mail
// of every shop; they address rows by id and never return them to a request.

export async function insertMail(
  db: Conn,
  shopId: number,
  mail: { to: string; subject: string; text: string; html?: string },
  now: number,
  dropped?: { reason: string },
): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({
      shop_id: shopId,
      to_address: mail.to,
      subject: mail.subject,
      body_text: mail.text,
      body_html: mail.html ?? null,
      next_attempt_at: now,
      created_at: now,
      ...(dropped ? { status: 'dropped' as const, last_error: dropped.reason } : {}),
    })
    .execute();
}

/**
 * Moves up to `limit` due rows from `pending` to `sending` in one statement and returns them.
 * While a row is `sending`, `next_attempt_at` holds the end of the claim's lease (`leaseUntil`),
 * after which a crashed sender's row may be taken back. On PostgreSQL the candidate rows are
 * locked with SKIP LOCKED, so concurrent workers claim disjoint rows without waiting; SQLite
 * runs one writer at a time and the status test in the same statement does the rest.
 */
export function claimDueMail(db: Conn, now: number, leaseUntil: number, limit: number): Promise<MailRow[]> {
  const due = db
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
  return db
    .updateTable('mail_outbox')
    .set({ status: 'sending', next_attempt_at: leaseUntil })
    .where('id', 'in', isPostgres(db) ? due.forUpdate().skipLocked() : due)
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

/** Marks a claimed row sent. */
export async function markMailSent(db: Conn, id: number, now: number): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status: 'sent', sent_at: now, last_error: null })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/** Records a failed attempt on a claimed row: retried at `nextAttemptAt`, or given up (`failed`). */
export async function markMailAttemptFailed(
  db: Conn,
  id: number,
  outcome: { attempts: number; lastError: string; nextAttemptAt: number; giveUp: boolean },
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({
      status: outcome.giveUp ? 'failed' : 'pending',
      attempts: outcome.attempts,
      last_error: outcome.lastError,
      next_attempt_at: outcome.nextAttemptAt,
    })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/** Hands claimed rows that were not tried back to the queue, due at once. */
export async function releaseMailClaims(db: Conn, ids: number[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('mail_outbox')
    .set({ status: 'pending', next_attempt_at: now })
    .where('id', 'in', ids)
    .where('status', '=', 'sending')
    .execute();
}

/** Rows whose claim lease ran out (the sender died mid-send) go back to `pending`, due at once. */
export async function recoverExpiredMailClaims(db: Conn, now: number): Promise<number> {
  const result = await db
    .updateTable('mail_outbox')
    .set({ status: 'pending', next_attempt_at: now, last_error: 'sending was interrupted; retrying' })
    .where('status', '=', 'sending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The mail not sent yet, of every shop (the operator's metrics): how much, and when the oldest was queued. */
export async function mailBacklog(db: Conn): Promise<{ count: number; oldestCreatedAt: number | null }> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldestCreatedAt: row.oldest === null ? null : Number(row.oldest) };
}

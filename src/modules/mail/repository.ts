import { type ExpressionBuilder, type Kysely, type QueryCreator, type SqlBool, sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
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
  clientNet: string | null = null,
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
      client_net: clientNet,
      ...(dropped ? { status: 'dropped' as const, last_error: dropped.reason } : {}),
    })
    .execute();
}

/**
 * How many mails of the shop queued since `since` are to be sent (dropped ones are not), to one
 * recipient, from one client, or all of them.
 */
export async function countQueuedMail(
  db: Conn,
  shopId: number,
  since: number,
  of: { to?: string; client?: string },
): Promise<number> {
  let query = db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId)
    .where('created_at', '>', since)
    .where('status', '<>', 'dropped');
  if (of.to !== undefined) query = query.where('to_address', '=', of.to);
  if (of.client !== undefined) query = query.where('client_net', '=', of.client);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Serialises the budgeted mail of one recipient of a shop for the rest of the transaction (PostgreSQL; SQLite writes one at a time). */
export async function lockRecipient(db: Conn, shopId: number, to: string): Promise<void> {
  if (isPostgres(db)) await sql`select pg_advisory_xact_lock(hashtext(${`mail:${shopId}:${to}`}))`.execute(db);
}

/** One claim of a row: the row and which of its claims (`claims` after it was claimed). */
export type MailClaim = Pick<MailRow, 'id' | 'claims'>;

/**
 * Moves up to `limit` due rows from `pending` to `sending` in one statement and returns them.
 * While a row is `sending`, `next_attempt_at` holds the end of the claim's lease (`leaseUntil`),
 * which its worker renews while it lives; after it, a crashed sender's row may be taken back.
 * Each claim counts in `claims`, so the functions below act only on the claim they were given.
 * A row claimed for the first time gets its Message-ID here (`<shopd.{id}.{messageIdTail}`,
 * e.g. `<shopd.42.k3Jx9q@example.com>`), kept for every later attempt. On PostgreSQL the
 * candidate rows are locked with SKIP LOCKED, so concurrent workers claim disjoint rows without
 * waiting; SQLite runs one writer at a time and the status test in the same statement does the rest.
 */
export function claimDueMail(
  db: Conn,
  now: number,
  leaseUntil: number,
  limit: number,
  messageIdTail: string,
): Promise<MailRow[]> {
  const due = (qc: QueryCreator<Database>) =>
    qc
      .selectFrom('mail_outbox')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(limit);
  const claim = {
    status: 'sending' as const,
    next_attempt_at: leaseUntil,
    claims: sql<number>`claims + 1`,
    message_id: sql<string>`coalesce(message_id, '<shopd.' || cast(id as text) || '.' || ${messageIdTail})`,
  };
  if (!isPostgres(db))
    return db
      .updateTable('mail_outbox')
      .set(claim)
      .where('id', 'in', due(db))
      .where('status', '=', 'pending')
      .returningAll()
      .execute();
  // Materialized: PostgreSQL may run a LIMIT … SKIP LOCKED subquery of `id in (…)` more than
  // once in one statement and claim more rows than `limit` (seen: two rows for a limit of one).
  return db
    .with(
      (cte) => cte('due').materialized(),
      (qc) => due(qc).forUpdate().skipLocked(),
    )
    .updateTable('mail_outbox')
    .set(claim)
    .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

/** Rows of these claims that are still theirs (`sending`, not taken over after a lapse). */
function held(eb: ExpressionBuilder<Database, 'mail_outbox'>, claims: MailClaim[]) {
  return eb.and([
    eb('status', '=', 'sending'),
    eb(
      eb.refTuple('id', 'claims'),
      'in',
      claims.map((c) => eb.tuple(c.id, c.claims)),
    ),
  ]);
}

/** Pushes the lease of claims still in hand to `leaseUntil` (the worker's heartbeat). */
export async function renewMailClaims(db: Conn, claims: MailClaim[], leaseUntil: number): Promise<void> {
  if (claims.length === 0) return;
  await db
    .updateTable('mail_outbox')
    .set({ next_attempt_at: leaseUntil })
    .where((eb) => held(eb, claims))
    .execute();
}

/** Marks a claimed row sent, with what the transport answered. */
export async function markMailSent(db: Conn, claim: MailClaim, now: number, response: string | null): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status: 'sent', sent_at: now, last_error: null, transport_response: response })
    .where((eb) => held(eb, [claim]))
    .execute();
}

/** Records a failed attempt on a claimed row: retried at `nextAttemptAt`, or given up (`failed`). */
export async function markMailAttemptFailed(
  db: Conn,
  claim: MailClaim,
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
    .where((eb) => held(eb, [claim]))
    .execute();
}

/** Hands claimed rows that were not tried back to the queue, due at once. */
export async function releaseMailClaims(db: Conn, claims: MailClaim[], now: number): Promise<void> {
  if (claims.length === 0) return;
  await db
    .updateTable('mail_outbox')
    .set({ status: 'pending', next_attempt_at: now })
    .where((eb) => held(eb, claims))
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
export async function unsentMail(db: Conn): Promise<{ count: number; oldestCreatedAt: number | null }> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldestCreatedAt: row.oldest === null ? null : Number(row.oldest) };
}

/** The shop's outbox for its owner, newest first (never the bodies: they may carry delivered goods). */
export function listShopMail(db: Conn, shopId: number, filter: MailFilter, limit: number, offset: number) {
  return shopMailQuery(db, shopId, filter)
    .select(['id', 'to_address', 'subject', 'status', 'last_error', 'attempts', 'created_at', 'sent_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countShopMail(db: Conn, shopId: number, filter: MailFilter): Promise<number> {
  const row = await shopMailQuery(db, shopId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface MailFilter {
  status?: MailRow['status'] | undefined;
  suppressed?: boolean | undefined;
  /** A case-insensitive substring of the recipient or the subject. */
  search?: string | undefined;
}

function shopMailQuery(db: Conn, shopId: number, filter: MailFilter) {
  let query = db.selectFrom('mail_outbox').where('shop_id', '=', shopId);
  if (filter.search)
    query = query.where(
      sql<SqlBool>`(${containsText('to_address', filter.search)} or ${containsText('subject', filter.search)})`,
    );
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.suppressed) query = query.where('status', '=', 'dropped').where('last_error', 'like', `${SUPPRESSED}%`);
  return query;
}

/** How the reason of a mail the shop's budgets held back begins (src/modules/mail/service.ts). */
export const SUPPRESSED = 'suppressed:';

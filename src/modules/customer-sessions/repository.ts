import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { CustomerSessionRow, CustomerSessionsTable, CustomerSignInCodesTable } from './customer-sessions.table.js';

type Conn = Kysely<Database>;

export async function insertCode(db: Conn, row: Insertable<CustomerSignInCodesTable>): Promise<void> {
  await db.insertInto('customer_sign_in_codes').values(row).execute();
}

/** Removes an e-mail's codes made before `before` (long dead: expired, used or tried out). */
export async function dropOldCodes(db: Conn, shopId: number, email: string, before: number): Promise<void> {
  await db
    .deleteFrom('customer_sign_in_codes')
    .where('shop_id', '=', shopId)
    .where('email', '=', email)
    .where('created_at', '<', before)
    .execute();
}

/**
 * Counts one try against every live code of the e-mail (unused, unexpired, tries left) and
 * answers those codes. The try is taken before the code is compared, in one statement: parallel
 * guesses cannot compare more often than the codes have tries.
 */
export function takeAttempt(
  db: Conn,
  shopId: number,
  email: string,
  maxAttempts: number,
  now: number,
): Promise<{ id: number; code_hash: string }[]> {
  return db
    .updateTable('customer_sign_in_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('shop_id', '=', shopId)
    .where('email', '=', email)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['id', 'code_hash'])
    .execute();
}

/**
 * Spends every unused code of the address (the one that opens a session, and its siblings) and
 * answers the ids spent. One statement, scanning the rows in the order takeAttempt does: the two
 * never hold each other's rows (PostgreSQL would otherwise see a deadlock between them).
 */
export async function spendCodes(db: Conn, shopId: number, email: string, now: number): Promise<number[]> {
  const rows = await db
    .updateTable('customer_sign_in_codes')
    .set({ used_at: now })
    .where('shop_id', '=', shopId)
    .where('email', '=', email)
    .where('used_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function insertSession(db: Conn, row: Insertable<CustomerSessionsTable>): Promise<void> {
  await db.insertInto('customer_sessions').values(row).execute();
}

export function findSessionByHash(
  db: Conn,
  shopId: number,
  tokenHash: string,
): Promise<CustomerSessionRow | undefined> {
  return db
    .selectFrom('customer_sessions')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchSession(db: Conn, shopId: number, sessionId: number, now: number): Promise<void> {
  await db
    .updateTable('customer_sessions')
    .set({ last_used_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', sessionId)
    .execute();
}

export async function deleteSession(db: Conn, shopId: number, sessionId: number): Promise<void> {
  await db.deleteFrom('customer_sessions').where('shop_id', '=', shopId).where('id', '=', sessionId).execute();
}

export async function dropExpiredSessions(db: Conn, shopId: number, email: string, now: number): Promise<void> {
  await db
    .deleteFrom('customer_sessions')
    .where('shop_id', '=', shopId)
    .where('email', '=', email)
    .where('expires_at', '<=', now)
    .execute();
}

/** The hourly sweep, over every shop: codes made before `codesBefore` and sessions expired by `now`. */
export async function sweepDeadRows(db: Conn, codesBefore: number, now: number): Promise<number> {
  const codes = await db.deleteFrom('customer_sign_in_codes').where('created_at', '<', codesBefore).executeTakeFirst();
  const sessions = await db.deleteFrom('customer_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(codes.numDeletedRows) + Number(sessions.numDeletedRows);
}

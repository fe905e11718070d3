import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type {
  AccountRow,
  ApiKeyRow,
  OwnerPasswordTokensTable,
  OwnerSessionRow,
  OwnerSessionsTable,
} from './accounts.table.js';

type Conn = Kysely<Database>;

export function findAccountByEmail(db: Conn, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findAccountById(db: Conn, accountId: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

export async function insertAccount(db: Conn, email: string, now: number): Promise<AccountRow> {
  return db.insertInto('accounts').values({ email, created_at: now }).returningAll().executeTakeFirstOrThrow();
}

export async function countAccounts(db: Conn): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setPasswordHash(db: Conn, accountId: number, passwordHash: string, now: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ password_hash: passwordHash, password_changed_at: now })
    .where('id', '=', accountId)
    .execute();
}

export function insertApiKey(
  db: Conn,
  key: { accountId: number; keyHash: string; prefix: string; scopes: string; label: string | null; now: number },
): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({
      account_id: key.accountId,
      key_hash: key.keyHash,
      prefix: key.prefix,
      scopes: key.scopes,
      label: key.label,
      created_at: key.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listApiKeys(db: Conn, accountId: number, order: 'asc' | 'desc' = 'asc'): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id', order).execute();
}

/** An active (not revoked) key by its hash. Every owner request with a key starts here. */
export function findActiveApiKey(db: Conn, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Sets `last_used_at` unless a parallel request did after `staleFrom`: one write a minute per key at most. */
export async function touchApiKey(db: Conn, keyId: number, now: number, staleFrom: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleFrom)]))
    .execute();
}

/** Revokes an active key; with `accountId`, only a key of that account. */
export async function revokeApiKey(
  db: Conn,
  keyId: number,
  now: number,
  accountId?: number,
): Promise<ApiKeyRow | undefined> {
  let query = db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return query.returningAll().executeTakeFirst();
}

/** Revokes every active key of the account; answers how many. */
export async function revokeAccountApiKeys(db: Conn, accountId: number, now: number): Promise<number> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return revoked.length;
}

export async function insertSession(db: Conn, row: Insertable<OwnerSessionsTable>): Promise<number> {
  const inserted = await db.insertInto('owner_sessions').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export function findSessionByHash(db: Conn, tokenHash: string): Promise<OwnerSessionRow | undefined> {
  return db.selectFrom('owner_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** The session of the account with its e-mail, for `GET /self/session`. */
export function findSessionOfAccount(
  db: Conn,
  accountId: number,
  sessionId: number,
): Promise<{ email: string; expires_at: number } | undefined> {
  return db
    .selectFrom('owner_sessions')
    .innerJoin('accounts', 'accounts.id', 'owner_sessions.account_id')
    .select(['accounts.email', 'owner_sessions.expires_at'])
    .where('owner_sessions.account_id', '=', accountId)
    .where('owner_sessions.id', '=', sessionId)
    .executeTakeFirst();
}

export async function touchSession(db: Conn, sessionId: number, now: number, expiresAt: number): Promise<void> {
  await db
    .updateTable('owner_sessions')
    .set({ last_used_at: now, expires_at: expiresAt })
    .where('id', '=', sessionId)
    .execute();
}

export async function deleteSessionByHash(db: Conn, tokenHash: string): Promise<void> {
  await db.deleteFrom('owner_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends the account's oldest sessions beyond the newest `keep`. */
export async function deleteOldestSessions(db: Conn, accountId: number, keep: number): Promise<void> {
  const kept = db
    .selectFrom('owner_sessions')
    .select('id')
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(keep);
  await db
    .deleteFrom('owner_sessions')
    .where('account_id', '=', accountId)
    // PostgreSQL and SQLite both take a LIMIT inside IN when it is wrapped in a derived table.
    .where('id', 'not in', (eb) => eb.selectFrom(kept.as('k')).select('k.id'))
    .execute();
}

export async function countActiveApiKeys(db: Conn, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Takes the account's row lock for the rest of the transaction (a write that changes nothing):
 * on PostgreSQL, concurrent transactions of one account then run one after the other; SQLite
 * runs every write transaction alone anyway.
 */
export async function lockAccount(db: Conn, accountId: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ email: eb.ref('email') }))
    .where('id', '=', accountId)
    .execute();
}

export async function deleteSession(db: Conn, accountId: number, sessionId: number): Promise<void> {
  await db.deleteFrom('owner_sessions').where('account_id', '=', accountId).where('id', '=', sessionId).execute();
}

/** Ends every session of the account but `keep` (the caller's own, when it has one). */
export async function deleteAccountSessions(db: Conn, accountId: number, keep: number | null): Promise<void> {
  let query = db.deleteFrom('owner_sessions').where('account_id', '=', accountId);
  if (keep !== null) query = query.where('id', '!=', keep);
  await query.execute();
}

export async function insertPasswordToken(db: Conn, row: Insertable<OwnerPasswordTokensTable>): Promise<void> {
  await db.insertInto('owner_password_tokens').values(row).execute();
}

/** The account of a live token (unused, unexpired), or undefined. */
export async function findLivePasswordToken(db: Conn, tokenHash: string, now: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('owner_password_tokens')
    .select('account_id')
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.account_id;
}

/**
 * Marks a live token (unused, unexpired) used and answers its account; undefined when the token
 * opens nothing. One statement: of two requests with the same token, one alone gets the account.
 */
export async function spendPasswordToken(db: Conn, tokenHash: string, now: number): Promise<number | undefined> {
  const row = await db
    .updateTable('owner_password_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('account_id')
    .executeTakeFirst();
  return row?.account_id;
}

/** Retires the account's unused tokens: a password set by any means makes the open links useless. */
export async function retirePasswordTokens(db: Conn, accountId: number, now: number): Promise<void> {
  await db
    .updateTable('owner_password_tokens')
    .set({ used_at: now })
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .execute();
}

/** The hourly sweep: expired sessions, and password tokens that expired or were used. */
export async function sweepDeadRows(db: Conn, now: number): Promise<number> {
  const sessions = await db.deleteFrom('owner_sessions').where('expires_at', '<=', now).executeTakeFirst();
  const tokens = await db
    .deleteFrom('owner_password_tokens')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('used_at', 'is not', null)]))
    .executeTakeFirst();
  return Number(sessions.numDeletedRows) + Number(tokens.numDeletedRows);
}

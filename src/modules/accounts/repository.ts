import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AccountRow, ApiKeyRow } from './accounts.table.js';

type Conn = Kysely<Database>;

export function findAccountByEmail(db: Conn, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
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

export function insertApiKey(
  db: Conn,
  key: { accountId: number; keyHash: string; prefix: string; scopes: string; now: number },
): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({
      account_id: key.accountId,
      key_hash: key.keyHash,
      prefix: key.prefix,
      scopes: key.scopes,
      created_at: key.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listApiKeys(db: Conn, accountId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** An active (not revoked) key by its hash. Every owner request starts here. */
export function findActiveApiKey(db: Conn, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function revokeApiKey(db: Conn, keyId: number, now: number): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

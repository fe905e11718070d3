import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { IdempotencyKeysTable } from './idempotency.table.js';

// The queries of the idempotency_keys table, for idempotency.ts (the rules are there).

type Conn = Kysely<Database>;

/** Removes this key's row if it is past `expiredBefore`, or a claim without an answer older than `lapsedBefore`. */
export async function dropLapsed(
  db: Conn,
  scope: string,
  key: string,
  expiredBefore: number,
  lapsedBefore: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where((eb) =>
      eb.or([
        eb('created_at', '<', expiredBefore),
        eb.and([eb('status_code', 'is', null), eb('created_at', '<', lapsedBefore)]),
      ]),
    )
    .execute();
}

/** Claims a key; the unique (scope, key) makes a second claim a constraint violation. */
export async function insertClaim(db: Conn, row: Insertable<IdempotencyKeysTable>): Promise<number> {
  const inserted = await db.insertInto('idempotency_keys').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export async function findClaim(db: Conn, scope: string, key: string) {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'status_code', 'response_body', 'created_at'])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  return row && { ...row, created_at: Number(row.created_at) };
}

export async function dropClaim(db: Conn, id: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('id', '=', id).execute();
}

export async function recordAnswer(db: Conn, id: number, statusCode: number, body: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, response_body: body })
    .where('id', '=', id)
    .execute();
}

export async function dropExpired(db: Conn, expiredBefore: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', expiredBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}

import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { IdempotencyKeysTable } from './idempotency.table.js';

// The queries of the idempotency_keys table, for idempotency.ts (the rules are there).

type Conn = Kysely<Database>;

/**
 * Removes this key's row if it is past `expiredBefore`, or if it is a claim whose request died
 * before its work committed: no answer, no `committed_at`, its lease over at `now` (a claim of an
 * older version has no lease and counts as lapsed).
 */
export async function dropLapsed(
  db: Conn,
  scope: string,
  key: string,
  expiredBefore: number,
  now: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where((eb) =>
      eb.or([
        eb('created_at', '<', expiredBefore),
        eb.and([
          eb('status_code', 'is', null),
          eb('committed_at', 'is', null),
          eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
        ]),
      ]),
    )
    .execute();
}

/** Records, in the transaction of the work a claim guards, that the work is done and what it made. */
export async function markCommitted(db: Conn, id: number, ref: string, now: number): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ committed_at: now, result_ref: ref })
    .where('id', '=', id)
    .where('committed_at', 'is', null)
    .execute();
}

/** Extends the leases of claims whose requests still run (no answer yet). */
export async function renewLeases(db: Conn, ids: number[], leaseUntil: number): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', ids)
    .where('status_code', 'is', null)
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
    .select([
      'id',
      'fingerprint',
      'status_code',
      'response_body',
      'created_at',
      'committed_at',
      'result_ref',
      'lease_until',
    ])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  return (
    row && {
      ...row,
      created_at: Number(row.created_at),
      committed_at: row.committed_at === null ? null : Number(row.committed_at),
      lease_until: row.lease_until === null ? null : Number(row.lease_until),
    }
  );
}

/**
 * Lets go of a claim whose request failed (a 5xx): dropped if its work did not commit, so a retry
 * acts; if it did, its lease ends now, so a retry is answered what the work made instead.
 */
export async function releaseClaim(db: Conn, id: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('id', '=', id).where('committed_at', 'is', null).execute();
  await db.updateTable('idempotency_keys').set({ lease_until: 0 }).where('id', '=', id).execute();
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

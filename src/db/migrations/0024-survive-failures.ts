import type { Kysely } from 'kysely';

/**
 * Surviving infrastructure failures (issue 33).
 *
 * - `idempotency_keys` gains `committed_at` and `result_ref`, written in the same transaction as the
 *   work a key guards: a retry after a crash between that commit and the recorded answer finds the
 *   work done and answers what it made (`result_ref`, e.g. the invoice), instead of doing it again.
 *   `lease_until` is how long a claim without an answer holds its key: the running request renews
 *   it, so after a crash the key is free within a lease (seconds), not the minutes a request may take.
 *   Existing unanswered claims keep `lease_until` null and are treated as lapsed.
 * - `storage_probes`: one row that `/ready` rewrites while the database's storage is failing (a full
 *   disk, a read-only file system), to learn when a write succeeds again. It belongs to no shop.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('committed_at', 'bigint').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('result_ref', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('lease_until', 'bigint').execute();
  await db.schema
    .createTable('storage_probes')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('written_at', 'bigint', (c) => c.notNull())
    .execute();
}

import type { CreateTableBuilder, Kysely } from 'kysely';
import { isPostgres } from './database.js';

/**
 * The few places where SQLite and PostgreSQL DDL differ, so each migration is written once.
 * Conventions: timestamps are epoch milliseconds (`bigint`), money is integer minor units
 * (`bigint`), booleans are `integer` 0/1 (SQLite has no boolean type), JSON is `text`.
 */

/** Adds an auto-numbered integer primary key named `id`. */
export function withId<T extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, never>,
): CreateTableBuilder<T, 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

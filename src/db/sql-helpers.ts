import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { isPostgres } from './database.js';

/**
 * Case-insensitive substring match that behaves the same on SQLite and PostgreSQL:
 * `lower(column) LIKE '%text%'` with LIKE wildcards in the text escaped. A scan of the rows it is
 * given: for small tables, or behind a more selective condition.
 */
export function containsText(column: string, text: string): Expression<SqlBool> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** The tables with a trigram search index (migration 0015) and the columns it covers. */
export interface SearchIndexes {
  invoices: 'id' | 'customer_email';
  customers: 'email';
  feedbacks: 'comment' | 'answer' | 'invoice_id';
  products: 'title' | 'path' | 'short_description';
}

/** A trigram index finds texts of at least 3 characters; a shorter text has no trigram to look up. */
export const MIN_INDEXED_SEARCH = 3;

/**
 * Rows of `table` (named `alias` in the query) where one of `columns` contains `text`, case
 * insensitively: `containsText` on any of them, answered through the table's trigram index.
 * SQLite: the rowids its FTS5 table (`<table>_search`) matches for the text as one phrase (of
 * trigrams: exactly the substring). PostgreSQL: `containsText`, which the `pg_trgm` GIN index on
 * `lower(column)` serves. Texts shorter than MIN_INDEXED_SEARCH fall back to `containsText`, a
 * scan of the shop's rows that stops when the page is full (counts of such searches scan them all).
 */
export function searchText<T extends keyof SearchIndexes, DB>(
  db: Kysely<DB>,
  table: T,
  alias: string,
  columns: readonly SearchIndexes[T][],
  text: string,
): Expression<SqlBool> {
  if (isPostgres(db) || [...text].length < MIN_INDEXED_SEARCH) {
    const matches = columns.map((column) => containsText(`${alias}.${column}`, text));
    return sql<SqlBool>`(${sql.join(matches, sql` or `)})`;
  }
  const index = sql.table(`${table}_search`);
  const phrase = `{${columns.join(' ')}} : "${text.replaceAll('"', '""')}"`;
  return sql<SqlBool>`${sql.ref(`${alias}.rowid`)} in (select rowid from ${index} where ${index} match ${phrase})`;
}

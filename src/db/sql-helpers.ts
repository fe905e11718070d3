import { type Expression, type SqlBool, sql } from 'kysely';

/**
 * Case-insensitive substring match that behaves the same on SQLite and PostgreSQL:
 * `lower(column) LIKE '%text%'` with LIKE wildcards in the text escaped.
 */
export function containsText(column: string, text: string): Expression<SqlBool> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  SqliteDialect,
  sql,
  type DatabaseIntrospector,
  type TableMetadata,
} from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './schema.js';

export type Dialect = DatabaseConfig['dialect'];

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  destroy(): Promise<void>;
}

// PostgreSQL answers bigint (counts, minor units, epoch milliseconds) and numeric (sums) as
// strings; every such value here is an integer far below 2^53, so numbers are exact.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return Number;
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * Kysely's PostgreSQL introspector (used only by the migrator, to see whether its bookkeeping
 * tables exist) reads the columns of every table in every schema; a schema dropped meanwhile by
 * another client makes that query fail. This one looks at the connection's own schema only.
 */
class CurrentSchemaIntrospector extends PostgresIntrospector {
  readonly #db: Kysely<any>;
  constructor(db: Kysely<any>) {
    super(db);
    this.#db = db;
  }
  override async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; isView: boolean }>`
      select table_name as name, table_schema as schema, table_type = 'VIEW' as "isView"
      from information_schema.tables where table_schema = current_schema()`.execute(this.#db);
    return rows.map((r) => ({ ...r, columns: [] }));
  }
}

class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

export function openDatabase(config: DatabaseConfig): Db {
  if (config.dialect === 'sqlite') {
    if (config.file !== ':memory:') mkdirSync(dirname(config.file), { recursive: true });
    const sqlite = new SqliteDatabase(config.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { kysely, dialect: 'sqlite', destroy: () => kysely.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: 10,
    types: pgTypes,
    ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
  });
  const kysely = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return { kysely, dialect: 'postgres', destroy: () => kysely.destroy() };
}

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Unique, foreign-key, not-null and check violations, recognised on both engines. */
export type ConstraintKind = 'unique' | 'foreign_key' | 'not_null' | 'check';

export function constraintViolation(err: unknown): ConstraintKind | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
    case '23505':
      return 'unique';
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
    case '23503':
      return 'foreign_key';
    case 'SQLITE_CONSTRAINT_NOTNULL':
    case '23502':
      return 'not_null';
    case 'SQLITE_CONSTRAINT_CHECK':
    case '23514':
      return 'check';
    default:
      return undefined;
  }
}

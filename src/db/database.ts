import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Driver,
  Kysely,
  type SqliteDatabase as KyselySqliteDatabase,
  type LogEvent,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
  sql,
  type TableMetadata,
} from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { createPrivateFile, makePrivateDir } from '../security/file-modes.js';
import { Checkpointer } from './checkpointer.js';
import { attachReader, PostgresReader, ReaderPool, setUpReaderConnection } from './reader-pool.js';
import type { Database } from './schema.js';

export type Dialect = DatabaseConfig['dialect'];

/** One statement as run: on SQLite the time the event loop was blocked by it. */
export interface QueryEvent {
  sql: string;
  durationMs: number;
}

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /**
   * Calls `listener` after every statement of the main connection (not the reader thread). On
   * SQLite `durationMs` is the synchronous call itself, i.e. how long the event loop stood
   * still; on PostgreSQL it is the round trip, during which the event loop runs on.
   */
  observeQueries(listener: (event: QueryEvent) => void): () => void;
  /** SQLite on disk: the thread that checkpoints the WAL (see checkpointer.ts); null otherwise. */
  checkpointer?: Checkpointer | null;
  destroy(): Promise<void>;
}

type QueryListener = (event: QueryEvent) => void;

function notify(listeners: Set<QueryListener>, sql: string, started: number): void {
  const event = { sql, durationMs: performance.now() - started };
  for (const listener of listeners) listener(event);
}

/**
 * A statement that answers rows as objects built by a constructor made for its columns, from the
 * arrays better-sqlite3 returns in raw mode. better-sqlite3 builds each row object through V8's
 * generic property API, one column at a time: for a page of 20 invoices (25 columns) that took
 * longer than SQLite's own work. An object literal of a fixed shape costs next to nothing.
 * The rows are the same as better-sqlite3's, down to duplicate names (the last column wins) and
 * a column named `__proto__` (assigned, as better-sqlite3 does: no own property).
 */
function literalRows(statement: SqliteDatabase.Statement): SqliteStatement {
  if (!statement.reader) return statement as unknown as SqliteStatement;
  const names = statement.columns().map((c) => c.name);
  const row = new Function(
    'v',
    `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`,
  ) as (values: unknown[]) => unknown;
  statement.raw(true);
  return {
    reader: true,
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(row),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield row(values);
    },
  };
}

/**
 * A statement that writes (an INSERT, UPDATE or DELETE, with or without RETURNING) tells
 * `onWrite` after each run: the checkpointer copies the WAL back only when something was written.
 */
function notingWrites(statement: SqliteStatement, onWrite: () => void): SqliteStatement {
  return {
    reader: statement.reader,
    all(parameters) {
      try {
        return statement.all(parameters);
      } finally {
        onWrite();
      }
    },
    run(parameters) {
      try {
        return statement.run(parameters);
      } finally {
        onWrite();
      }
    },
    iterate: (parameters) => statement.iterate(parameters),
  };
}

/**
 * The connection Kysely's SQLite driver talks to, with three additions: statements are prepared
 * once and reused (Kysely prepares every query it runs; preparing costs as much as running a
 * point lookup), rows are built by `literalRows`, and each call can be timed for
 * `observeQueries`. Kysely never streams (`iterate`) here, so a cached statement is never busy
 * when it is run again.
 */
function reusingStatements(
  sqlite: SqliteDatabase.Database,
  listeners: Set<QueryListener>,
  onWrite: () => void,
  capacity = 1000,
): KyselySqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  const timed = (text: string, statement: SqliteStatement): SqliteStatement => ({
    reader: statement.reader,
    all(parameters) {
      const started = performance.now();
      try {
        return statement.all(parameters);
      } finally {
        notify(listeners, text, started);
      }
    },
    run(parameters) {
      const started = performance.now();
      try {
        return statement.run(parameters);
      } finally {
        notify(listeners, text, started);
      }
    },
    iterate: (parameters) => statement.iterate(parameters),
  });
  return {
    close: () => sqlite.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (!statement) {
        const prepared = sqlite.prepare(text);
        statement = prepared.readonly ? literalRows(prepared) : notingWrites(literalRows(prepared), onWrite);
        if (statements.size >= capacity) statements.delete(statements.keys().next().value!);
        statements.set(text, statement);
      }
      return listeners.size === 0 ? statement : timed(text, statement);
    },
  };
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

/**
 * Kysely's SQLite driver begins transactions with a plain (deferred) `begin`: the write lock is
 * taken at the first write. A deferred transaction that has read and then writes, after another
 * process (the CLI, a second server) wrote the file meanwhile, fails at once with SQLITE_BUSY:
 * SQLite cannot upgrade its stale snapshot and does not call the busy handler for it. `begin
 * immediate` takes the write lock before the first read, so a transaction never meets that
 * conflict. Within this process the one connection runs one transaction at a time anyway, so
 * nothing is lost by taking the lock early.
 *
 * While another process holds the lock, the wait for it is asynchronous: better-sqlite3's busy
 * handler would sleep on the event loop (up to `busy_timeout`, during which the process serves
 * nothing, not even pages from memory), so `begin immediate` is tried without it and tried again
 * after a short sleep, for up to SQLITE_BUSY_TIMEOUT_MS, then fails with SQLITE_BUSY (a 503).
 * This process's other statements queue behind the connection meanwhile, as behind any
 * transaction. Single statements outside a transaction keep the synchronous busy handler.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const deadline = performance.now() + SQLITE_BUSY_TIMEOUT_MS;
    await connection.executeQuery(CompiledQuery.raw('pragma busy_timeout = 0'));
    try {
      for (let pause = 1; ; pause = Math.min(pause * 2, 25)) {
        try {
          await connection.executeQuery(CompiledQuery.raw('begin immediate'));
          return;
        } catch (err) {
          if (!databaseBusy(err) || performance.now() >= deadline) throw err;
        }
        await sleep(pause);
      }
    } finally {
      await connection.executeQuery(CompiledQuery.raw(`pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`));
    }
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;

export interface OpenOptions {
  /** SQLite: run `heavyRead` queries on a reader thread (default true; an in-memory database has none). */
  readerThread?: boolean;
  /** SQLite on disk: the checkpointer's intervals and sizes (tests make them small). */
  checkpoint?: ConstructorParameters<typeof Checkpointer>[2];
}

export function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Db {
  const listeners = new Set<QueryListener>();
  const observeQueries = (listener: QueryListener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  if (config.dialect === 'sqlite') {
    const onDisk = config.file !== ':memory:';
    if (onDisk) {
      // Only this user may read the database (see file-modes.ts): its -wal and -shm get its mode.
      makePrivateDir(dirname(config.file));
      createPrivateFile(config.file);
    }
    const sqlite = new SqliteDatabase(config.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    sqlite.pragma('synchronous = NORMAL');
    // A page cache of up to 64 MiB instead of the default 2 MB: a write touches a page of every
    // index of its table (nine on invoices), and with a million invoices those pages rarely stay
    // in 2 MB, so each one is read again from the OS. Measured on the bench shop: the statements
    // of a checkout 1.0 → 0.63 ms; reads of hot pages are unchanged. Filled on demand.
    sqlite.pragma('cache_size = -65536');
    // Give the query planner table statistics (sampled, so fast on large tables): without them
    // SQLite guesses, and may walk a million parts by shop to avoid sorting ten invoices' parts.
    sqlite.pragma('analysis_limit = 400');
    sqlite.pragma('optimize = 0x10002');
    const checkpointer = onDisk ? new Checkpointer(sqlite, config.file, options.checkpoint) : null;
    const kysely = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect({
        database: reusingStatements(sqlite, listeners, () => checkpointer?.noteWrite()),
      }),
    });
    const reader = onDisk && options.readerThread !== false ? new ReaderPool(config.file) : null;
    if (reader) attachReader(kysely, reader);
    // A RESTART checkpoint holds the main connection like a transaction would (see Checkpointer).
    checkpointer?.holdWith((fn) => kysely.connection().execute(() => fn()));
    return {
      kysely,
      dialect: 'sqlite',
      observeQueries,
      checkpointer,
      destroy: async () => {
        await checkpointer?.close();
        await reader?.close();
        await kysely.destroy();
      },
    };
  }
  const poolOptions = {
    connectionString: config.url,
    types: pgTypes,
    ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
  };
  const pool = new pg.Pool({ ...poolOptions, max: 10 });
  // Heavy reads (searches, reports) get a connection of their own (see PostgresReader).
  const readerPool = new pg.Pool({ ...poolOptions, max: 1 });
  const log = (event: LogEvent) => {
    if (listeners.size === 0) return;
    const durationMs = event.queryDurationMillis;
    for (const listener of listeners) listener({ sql: event.query.sql, durationMs });
  };
  const kysely = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }), log });
  const reader = new PostgresReader(
    new Kysely<Database>({
      dialect: new CurrentSchemaPostgresDialect({ pool: readerPool, onCreateConnection: setUpReaderConnection }),
    }),
  );
  attachReader(kysely, reader);
  return {
    kysely,
    dialect: 'postgres',
    observeQueries,
    destroy: async () => {
      await reader.close();
      await kysely.destroy();
    },
  };
}

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * SQLite's SQLITE_BUSY (and its extended codes): another process held the database's write lock
 * for longer than `busy_timeout`. Not a bug of the request: it may be tried again.
 */
export function databaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
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

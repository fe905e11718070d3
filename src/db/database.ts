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
  sql,
  type TableMetadata,
} from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { createPrivateFile, makePrivateDir } from '../security/file-modes.js';
import { registerReader, SqliteReader } from './reader.js';
import type { Database } from './schema.js';
import { StorageHealth } from './storage-health.js';

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
   * Calls `listener` after every statement (Kysely's `log`). On SQLite `durationMs` is the
   * synchronous call itself, i.e. how long the event loop stood still; on PostgreSQL it is the
   * round trip, during which the event loop runs on.
   */
  observeQueries(listener: (event: QueryEvent) => void): () => void;
  /** The thread of heavy reads (reader.ts): SQLite on a file only. */
  reader: SqliteReader | null;
  /**
   * Where failures outside any query are reported: an idle PostgreSQL connection the server ended
   * (a restart, a failover). The pool has dropped that connection and opens another when needed.
   * app.ts points it at the app's logger.
   */
  onError: (err: Error, msg: string) => void;
  /** Whether the storage under the database fails now (a full disk, a lost server): storage-health.ts. */
  health: StorageHealth;
  /** PostgreSQL's connection pool as it is now (connections open, idle, queries waiting for one); null on SQLite's one connection. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  destroy(): Promise<void>;
}

type QueryListener = (event: QueryEvent) => void;

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
  readonly #db: Kysely<unknown>;
  constructor(db: Kysely<unknown>) {
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
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
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
  readonly #sqlite: SqliteDatabase.Database;
  /** Whether a query or transaction holds the connection, or it is being handed to the next in line. */
  #held = false;
  /** Whether the connection was taken in this turn of the event loop. */
  #takenThisTurn = false;
  /** Who waits for the connection, first come, first served. */
  readonly #waiting: (() => void)[] = [];
  constructor(config: SqliteDialectConfig, sqlite: SqliteDatabase.Database) {
    super(config);
    this.#sqlite = sqlite;
  }

  /**
   * The connection is taken at most once per turn of the event loop, by whoever asked first.
   * better-sqlite3 answers synchronously, so without this a request that finds the connection
   * free runs all its statements, and the next readable connection's request after it, within one
   * turn: under load a turn served every waiting connection to the end (about 25 checkouts, 300
   * ms on the bench). The loop accepts one new connection per turn, so a buyer connecting then
   * waited turns of that length for every connection queued before theirs (seconds: T4's p99 was
   * 11–23× its p50, with checkouts not answered in a round). Handing the connection on once per
   * turn keeps turns short, so connections are accepted and read as they come, and requests are
   * served in the order they asked; throughput is unchanged (docs/internals.md, Performance).
   * Kysely's own lock (super) is then always free when taken.
   */
  override async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held || this.#takenThisTurn || this.#waiting.length > 0) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#held = true;
    }
    this.#takenThisTurn = true;
    setImmediate(this.#nextTurn);
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.#held = false;
    // Held across turns (a transaction waiting for another process's lock): the next goes now.
    if (!this.#takenThisTurn) this.#handOver();
  }

  readonly #nextTurn = () => {
    this.#takenThisTurn = false;
    if (!this.#held) this.#handOver();
  };

  #handOver(): void {
    const next = this.#waiting.shift();
    if (!next) return;
    this.#held = true;
    next();
  }

  /**
   * SQLite ends a transaction by itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM):
   * a `rollback` after one fails with "cannot rollback - no transaction is active", and that
   * error would replace the one that explains what happened.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.#sqlite.inTransaction) await super.rollbackTransaction(connection);
  }

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
  readonly #sqlite: SqliteDatabase.Database;
  constructor(sqlite: SqliteDatabase.Database) {
    const config = { database: reusingStatements(sqlite) };
    super(config);
    this.#config = config;
    this.#sqlite = sqlite;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#sqlite);
  }
}

/** How long a PostgreSQL request waits for a connection before it fails (a 503). */
const PG_CONNECTION_WAIT_MS = 10_000;

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * The size SQLite truncates the WAL file back to when it starts the WAL over after a checkpoint:
 * one large transaction (a restore, a rollup rebuild) may grow it, it does not stay that large.
 */
export const SQLITE_JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * The one SQLite connection of a process, set up here and nowhere else. WAL lets readers of other
 * processes (a backup, the CLI) go on while this one writes; `synchronous = NORMAL` syncs at
 * checkpoints rather than at every commit (a crash of the machine may lose the last commits, never
 * the database). SQLite checkpoints on its own in the commit that finds the WAL over 1000 pages
 * (`wal_autocheckpoint`, left at its default): with a single connection nothing holds an older
 * snapshot, so each checkpoint copies everything back and the next commit writes the WAL from its
 * start again; `journal_size_limit` then truncates a WAL that one large transaction grew.
 */
function openSqlite(file: string): SqliteDatabase.Database {
  if (file !== ':memory:') {
    // Only this user may read the database (see file-modes.ts): its -wal and -shm get its mode.
    makePrivateDir(dirname(file));
    createPrivateFile(file);
  }
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`journal_size_limit = ${SQLITE_JOURNAL_SIZE_LIMIT}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  // A page cache of up to 64 MiB instead of the default 2 MB: a write touches a page of every
  // index of its table (nine on invoices), and with a million invoices those pages rarely stay
  // in 2 MB, so each one is read again from the OS. Measured on the bench shop: the statements
  // of a checkout 1.0 → 0.63 ms; reads of hot pages are unchanged. Filled on demand.
  sqlite.pragma('cache_size = -65536');
  // Give the query planner table statistics (sampled, so fast on large tables): without them
  // SQLite guesses, and may walk a million parts by shop to avoid sorting ten invoices' parts.
  sqlite.pragma('analysis_limit = 400');
  sqlite.pragma('optimize = 0x10002');
  return sqlite;
}

function openSqliteReadOnly(file: string): SqliteDatabase.Database {
  const sqlite = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  return sqlite;
}

/**
 * The connection as Kysely sees it, with the statements it prepares kept for reuse. Kysely's
 * SQLite driver prepares every statement anew, and for a cheap statement preparing is most of the
 * cost: bench T8 (`/health`, one `select 1`, vs a bare route) measured 0.59–0.70× without reuse
 * and 0.80–0.83× with it, on the same machine in the same hour. Statements are keyed by their SQL
 * (the values are bound at each run); the least recently used go past STATEMENT_CACHE_SIZE.
 * Kysely runs one statement at a time on the connection, and never iterates one (no `.stream()`
 * here), so a statement is never reused while it is still running.
 */
function reusingStatements(sqlite: SqliteDatabase.Database): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) statements.delete(sql);
      else {
        statement = sqlite.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;

const reportError = (err: Error, msg: string) => console.error(msg, err);

/**
 * `readOnly`: SQLite's file is opened read-only (it must exist), without the set-up that writes
 * (WAL, statistics) and without a reader thread; for commands that only look (`migrate
 * --dry-run`). PostgreSQL connections are the same either way.
 */
export function openDatabase(config: DatabaseConfig, { readOnly = false } = {}): Db {
  const listeners = new Set<QueryListener>();
  const observeQueries = (listener: QueryListener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  const health = new StorageHealth();
  const log = (event: LogEvent) => {
    if (event.level === 'error') health.report(event.error);
    else if (health.failure) health.succeeded(event.query.sql);
    if (listeners.size === 0) return;
    const query = { sql: event.query.sql, durationMs: event.queryDurationMillis };
    for (const listener of listeners) listener(query);
  };
  if (config.dialect === 'sqlite') {
    const kysely = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect(readOnly ? openSqliteReadOnly(config.file) : openSqlite(config.file)),
      log,
    });
    const reader =
      config.file === ':memory:' || readOnly
        ? null
        : new SqliteReader({ file: config.file, busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS });
    registerReader(kysely, reader);
    const destroy = async () => {
      await reader?.close();
      await kysely.destroy();
    };
    return {
      kysely,
      dialect: 'sqlite',
      observeQueries,
      reader,
      onError: reportError,
      health,
      poolStats: () => null,
      destroy,
    };
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    types: pgTypes,
    max: 10,
    // A request waits at most this long for a connection (a new one, or a free one of the pool):
    // an unreachable server or a pool held by stuck work is a 503, never a request that hangs.
    connectionTimeoutMillis: PG_CONNECTION_WAIT_MS,
    ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
  });
  const kysely = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }), log });
  registerReader(kysely, null);
  const db: Db = {
    kysely,
    dialect: 'postgres',
    observeQueries,
    reader: null,
    onError: reportError,
    health,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    destroy: () => kysely.destroy(),
  };
  // Every connection gets an error listener as it is made. node-postgres emits 'error' on a client
  // whose socket ended (the server restarted, pg_terminate_backend, a failover), and the pool
  // listens only while the client is idle: one lost while checked out (between two statements of
  // a transaction) would be an unhandled 'error' event and end the process. The statement in
  // flight, or the next one, fails on its own (a 503 for its request: storage-health.ts); the
  // pool drops the broken client when it is released and opens a new one when needed.
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      db.onError(err, 'a PostgreSQL connection failed; the pool replaces it');
      health.report(err);
    });
  });
  // The pool's own listener for idle clients re-emits their errors here: logged above already.
  pool.on('error', () => {});
  return db;
}

export function isPostgres(db: Pick<Kysely<unknown>, 'getExecutor'>): boolean {
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

/**
 * What the database's failures mean for the service (issue 33). A failure of the storage under the
 * database — a full disk, a read-only file system, a write lock held past its bound, a database
 * server that dropped or refused the connection — is no bug of the request that met it: the
 * request is a 503 naming the cause (with `Retry-After`), `/ready` answers 503 while it lasts, and
 * the log says so once when it starts and once when it ends, instead of a stack per request.
 */
export type StorageCause = 'disk_full' | 'read_only' | 'io_error' | 'locked' | 'unreachable';

export interface StorageFailure {
  cause: StorageCause;
  /** The engine's code (SQLITE_FULL, 53100, ECONNREFUSED …) or, without one, the driver's message. */
  code: string;
  since: number;
}

/** What a client is told, and `/ready` names: the cause in words. */
export const causeText: Record<StorageCause, string> = {
  disk_full: 'the database disk is full',
  read_only: 'the database is read-only',
  io_error: 'the database cannot read or write its files',
  locked: 'the database is locked by another process',
  unreachable: 'the database does not answer',
};

/** How long a client should wait before it retries, by cause (the `Retry-After` of the 503). */
export const retryAfterSeconds: Record<StorageCause, number> = {
  disk_full: 30,
  read_only: 30,
  io_error: 30,
  locked: 1,
  unreachable: 5,
};

// PostgreSQL's SQLSTATE codes: class 08 (connection exception), 57P01–57P03 (the server shutting
// down, crashed, or not accepting connections yet), 53100 (disk full), 25006 (a read-only
// transaction: a standby after a failover). Node's socket errors and node-postgres's own messages
// for a connection that ended or could not be had in time carry no SQLSTATE.
const PG_UNREACHABLE = new Set(['57P01', '57P02', '57P03', '53300']);
const NODE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
const PG_LOST_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
];

/** The storage failure `err` is, or undefined when it is anything else (a bug, a constraint, bad input). */
export function storageFailureOf(err: unknown): { cause: StorageCause; code: string } | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_FULL')) return { cause: 'disk_full', code };
    if (code.startsWith('SQLITE_READONLY')) return { cause: 'read_only', code };
    if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) return { cause: 'io_error', code };
    if (code.startsWith('SQLITE_BUSY')) return { cause: 'locked', code };
    if (code === '53100') return { cause: 'disk_full', code };
    if (code === '25006') return { cause: 'read_only', code };
    if (code.startsWith('08') || PG_UNREACHABLE.has(code) || NODE_SOCKET.has(code))
      return { cause: 'unreachable', code };
  }
  if (PG_LOST_MESSAGES.some((m) => err.message.startsWith(m))) return { cause: 'unreachable', code: err.message };
  return undefined;
}

const WRITE = /^\s*(insert|update|delete|replace|commit)\b/i;

export interface StorageHealthLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * The state of this process's database: failing since when and why, or not. Every statement's
 * outcome passes through here (database.ts observes them): a storage failure starts the state, a
 * write that succeeds ends it (a statement that succeeds ends an `unreachable` one).
 */
export class StorageHealth {
  failure: StorageFailure | null = null;
  /** The app's logger (app.ts); a command of the CLI reports the failure it meets itself. */
  log: StorageHealthLog = { warn: () => {}, info: () => {} };

  /** Called with every error a statement or a request met; answers the failure it is, if any. */
  report(err: unknown, now = Date.now()): StorageFailure | undefined {
    const found = storageFailureOf(err);
    if (!found) return undefined;
    if (this.failure?.cause !== found.cause) {
      this.failure = { ...found, since: now };
      this.log.warn(
        { cause: found.cause, code: found.code },
        `database failure: ${causeText[found.cause]} (${found.code}); requests that need it answer 503 and /ready answers 503 until a write succeeds`,
      );
    }
    return this.failure;
  }

  /** Called after every statement that succeeded. */
  succeeded(sql: string, now = Date.now()): void {
    const failure = this.failure;
    if (failure === null) return;
    if (failure.cause !== 'unreachable' && !WRITE.test(sql)) return;
    this.failure = null;
    this.log.info(
      { cause: failure.cause, seconds: Math.round((now - failure.since) / 1000) },
      failure.cause === 'unreachable'
        ? 'database failure over: it answers again'
        : 'database failure over: a write succeeded again',
    );
  }
}

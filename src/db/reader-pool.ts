import { Worker } from 'node:worker_threads';
import { CompiledQuery, type DatabaseConnection, type Kysely } from 'kysely';

/** Where `heavyRead` sends a root connection's heavy reads. */
export interface HeavyReader {
  /** Rows of a compiled SELECT; null when the reader is gone (the caller then runs it itself). */
  run<R>(query: CompiledQuery<R>): Promise<R[]> | null;
  close(): Promise<void>;
}

/**
 * Heavy reads off the event loop. better-sqlite3 is synchronous: a query that scans a million
 * rows (a substring search over every invoice) would stop every other request for its whole
 * duration. Such queries go to a read-only connection on a worker thread instead (WAL lets it
 * read while the main connection writes; it sees every transaction committed before the query
 * starts). The thread runs at a low scheduling priority so that, when the CPU is short, the
 * storefront wins and the report waits. On PostgreSQL queries never block the event loop, but a
 * scan still takes the database server's CPU: `PostgresReader` bounds that instead.
 */
export class ReaderPool implements HeavyReader {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>();
  private nextId = 1;
  private failure: Error | null = null;

  /** The thread starts with the first heavy read: most processes (and tests) never need one. */
  constructor(
    private readonly file: string,
    private readonly nice = 19,
  ) {}

  private start(): Worker {
    const worker = new Worker(new URL('./reader-worker.js', import.meta.url), {
      workerData: { file: this.file, nice: this.nice },
    });
    worker.on('message', (message: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const pending = this.waiting.get(message.id);
      if (!pending) return;
      this.waiting.delete(message.id);
      if (this.waiting.size === 0) worker.unref();
      if (message.error) pending.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else pending.resolve(message.rows!);
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const pending of this.waiting.values()) pending.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the reader thread exited (${code})`)));
    return worker;
  }

  /** Rows of a compiled SELECT, read on the worker thread; null when the thread is gone. */
  run<R>(query: CompiledQuery<R>): Promise<R[]> | null {
    if (this.failure) return null;
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    return new Promise<R[]>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      worker.ref();
      worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the reader thread is closed');
    // Referenced again before it is terminated, as the checkpointer's thread is (see
    // Checkpointer.close): a precaution here, where no test has shown the lost exit.
    this.worker?.ref();
    await this.worker?.terminate();
  }
}

/**
 * Heavy reads on PostgreSQL: one connection of their own, so at most one scan runs at a time
 * whatever the number of owners searching (the others wait for it, as they wait for the SQLite
 * reader thread), without parallel workers (a parallel scan of a million invoices takes a leader
 * and two workers, i.e. every core of a small machine), read-only. The storefront's pages and the
 * rest of the owner API keep the main pool: with the database server on the same cores, two
 * owner searches took half the storefront's throughput.
 */
export class PostgresReader implements HeavyReader {
  constructor(private readonly db: Kysely<any>) {}

  run<R>(query: CompiledQuery<R>): Promise<R[]> {
    return this.db.executeQuery(query).then((result) => result.rows);
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}

/** Sets up each connection of a PostgresReader's pool when it opens (its dialect's `onCreateConnection`). */
export async function setUpReaderConnection(connection: DatabaseConnection): Promise<void> {
  await connection.executeQuery(CompiledQuery.raw('set max_parallel_workers_per_gather = 0'));
  await connection.executeQuery(CompiledQuery.raw('set default_transaction_read_only = on'));
}

const readers = new WeakMap<Kysely<any>, HeavyReader>();

export function attachReader(db: Kysely<any>, reader: HeavyReader): void {
  readers.set(db, reader);
}

/**
 * Runs a read that may touch a large part of a table: on a root connection it goes to its heavy
 * reader (the SQLite reader thread, the PostgreSQL reader connection); inside a transaction (a
 * different handle) or when the reader is unavailable it runs like any other query.
 */
export async function heavyRead<R>(
  db: Kysely<any>,
  query: { compile(): CompiledQuery<R>; execute(): Promise<R[]> },
): Promise<R[]> {
  const rows = readers.get(db)?.run(query.compile());
  return rows ?? query.execute();
}

/** `heavyRead` when `offLoop`, else an ordinary execution: for reads that are heavy only sometimes. */
export function readRows<R>(
  db: Kysely<any>,
  query: { compile(): CompiledQuery<R>; execute(): Promise<R[]> },
  offLoop: boolean,
): Promise<R[]> {
  return offLoop ? heavyRead(db, query) : query.execute();
}

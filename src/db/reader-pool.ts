import { Worker } from 'node:worker_threads';
import type { CompiledQuery, Kysely } from 'kysely';

/**
 * Heavy reads off the event loop. better-sqlite3 is synchronous: a query that scans a million
 * rows (a substring search over every invoice) would stop every other request for its whole
 * duration. Such queries go to a read-only connection on a worker thread instead (WAL lets it
 * read while the main connection writes; it sees every transaction committed before the query
 * starts). The thread runs at a low scheduling priority so that, when the CPU is short, the
 * storefront wins and the report waits. PostgreSQL needs none of this: its queries never block
 * the event loop, so `heavyRead` simply executes them.
 */
export class ReaderPool {
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
    const worker = new Worker(new URL('./reader-worker.js', import.meta.url), { workerData: { file: this.file, nice: this.nice } });
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
    await this.worker?.terminate();
  }
}

const readers = new WeakMap<Kysely<any>, ReaderPool>();

export function attachReader(db: Kysely<any>, pool: ReaderPool): void {
  readers.set(db, pool);
}

/**
 * Runs a read that may touch a large part of a table: on the root SQLite connection it goes to
 * the reader thread; inside a transaction (a different handle), on PostgreSQL, or when the thread
 * is unavailable it runs like any other query.
 */
export async function heavyRead<R>(db: Kysely<any>, query: { compile(): CompiledQuery<R>; execute(): Promise<R[]> }): Promise<R[]> {
  const rows = readers.get(db)?.run(query.compile());
  return rows ?? query.execute();
}

/** `heavyRead` when `offLoop`, else an ordinary execution: for reads that are heavy only sometimes. */
export function readRows<R>(db: Kysely<any>, query: { compile(): CompiledQuery<R>; execute(): Promise<R[]> }, offLoop: boolean): Promise<R[]> {
  return offLoop ? heavyRead(db, query) : query.execute();
}

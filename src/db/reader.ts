import { Worker } from 'node:worker_threads';
import type { CompiledQuery, Kysely } from 'kysely';

/**
 * Heavy reads off the event loop, on SQLite. better-sqlite3 is synchronous, and an owner's
 * substring search over a million invoices cannot be made cheap: a text under three characters
 * cannot use the trigram index, and the answer's `totalCount` counts every match (about 1.4 s for
 * a search that matches most invoices, measured on the bench shop). On the main connection the
 * whole process would answer nothing meanwhile, every shop's storefront included. Such reads run
 * on one worker thread instead, with its own read-only connection (WAL lets it read while the
 * main connection writes; it sees what was committed when its statement starts) at the lowest
 * scheduling priority. Bench T7 measures it (bench/README.md).
 *
 * Used through `heavyRead` by the list queries that search (invoices, customers). On PostgreSQL,
 * and for an in-memory SQLite database, they run on the ordinary connection: PostgreSQL's driver
 * does not block the event loop. The thread starts with the first heavy read; when it fails, the
 * failure is logged, the reads waiting on it fail (a 500), and the next heavy read starts a new
 * thread.
 */

/** What the thread is started with (reader-thread.ts). */
export interface ReaderSetup {
  file: string;
  busyTimeoutMs: number;
}
export interface ReaderRequest {
  id: number;
  sql: string;
  parameters: readonly unknown[];
}
export type ReaderAnswer = { id: number; rows: unknown[] } | { id: number; error: { message: string; code?: string } };

export type ReaderLog = (err: Error, msg: string) => void;

export class SqliteReader {
  #worker: Worker | null = null;
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>();
  #closed = false;
  /** Where failures of the thread are logged; app.ts points it at the app's logger. */
  log: ReaderLog = (err, msg) => console.error(msg, err);

  constructor(readonly setup: ReaderSetup) {}

  #start(): Worker {
    const thread = new URL(
      import.meta.url.endsWith('.ts') ? './reader-thread.ts' : './reader-thread.js',
      import.meta.url,
    );
    const worker = new Worker(new URL('./reader-boot.mjs', import.meta.url), {
      workerData: { ...this.setup, entry: thread.href },
    });
    worker.on('message', (answer: ReaderAnswer) => {
      const waiting = this.#waiting.get(answer.id);
      if (!waiting) return;
      this.#waiting.delete(answer.id);
      if (this.#waiting.size === 0) worker.unref();
      if ('error' in answer)
        waiting.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      else waiting.resolve(answer.rows);
    });
    const fail = (err: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      if (!this.#closed) this.log(err, 'the reader thread failed; the next heavy read starts a new one');
      for (const waiting of this.#waiting.values()) waiting.reject(err);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the reader thread exited with code ${code}`)));
    return worker;
  }

  /** The rows of a compiled SELECT, read on the thread. */
  rows<R>(query: CompiledQuery<R>): Promise<R[]> {
    if (this.#closed) return Promise.reject(new Error('the reader thread is closed'));
    this.#worker ??= this.#start();
    const worker = this.#worker;
    const id = this.#nextId++;
    return new Promise<R[]>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      worker.ref();
      const request: ReaderRequest = { id, sql: query.sql, parameters: query.parameters };
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    for (const waiting of this.#waiting.values()) waiting.reject(new Error('the reader thread is closed'));
    this.#waiting.clear();
    await worker?.terminate();
  }
}

/** Each root Kysely instance made by openDatabase, with its reader (null: heavy reads run inline). */
const readers = new WeakMap<object, SqliteReader | null>();

export function registerReader(db: Pick<Kysely<unknown>, 'isTransaction'>, reader: SqliteReader | null): void {
  readers.set(db, reader);
}

interface Read<R> {
  compile(): CompiledQuery<R>;
  execute(): Promise<R[]>;
}

/**
 * Runs a heavy SELECT on the reader thread when there is one. Inside a transaction it runs on the
 * transaction's connection, which alone sees the transaction's own writes. Any other Kysely
 * instance than the one openDatabase made (or a transaction of it) is a programming error, said
 * at once rather than quietly reading on the event loop.
 */
export function heavyRead<R>(db: Pick<Kysely<unknown>, 'isTransaction'>, query: Read<R>): Promise<R[]> {
  if (db.isTransaction) return query.execute();
  if (!readers.has(db)) throw new Error('heavyRead: pass the Kysely instance openDatabase made (app.db.kysely)');
  const reader = readers.get(db);
  return reader ? reader.rows(query.compile()) : query.execute();
}

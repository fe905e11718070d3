import { Worker } from 'node:worker_threads';
import type { CompiledQuery, Kysely } from 'kysely';

/** Where a root SQLite connection's heavy writes go: its file, and what to tell after one. */
interface Writer {
  file: string;
  /** Called after a write: the checkpointer copies the WAL back when something was written. */
  onWrite(): void;
}

const writers = new WeakMap<Kysely<any>, Writer>();

export function attachWriter(db: Kysely<any>, writer: Writer): void {
  writers.set(db, writer);
}

function runOnThread(file: string, statements: readonly CompiledQuery[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./writer-worker.js', import.meta.url), {
      workerData: { file, statements: statements.map((s) => ({ sql: s.sql, parameters: s.parameters })) },
    });
    let answered = false;
    worker.once('message', (message: { ok?: true; error?: { message: string; code?: string } }) => {
      answered = true;
      if (message.error) reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else resolve();
    });
    worker.once('error', (err) => {
      answered = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the writer thread exited (${code}) without an answer`));
    });
  });
}

/**
 * Runs `statements` as one transaction. Meant for heavy writes: statements that rewrite a large part of a table (a shop's
 * dashboard rollups, rebuilt from a million invoices when its timezone changes). better-sqlite3
 * is synchronous, so on the main connection they would stop every request for their whole
 * duration (10 s on the bench shop). They run instead as one transaction on a thread of their
 * own with its own connection, while the main connection is held: the process's other
 * statements wait for the write like for any transaction, without blocking the event loop, and
 * never meet SQLite's write lock (a busy wait on the main thread). Pages served from memory and
 * reads on the reader thread go on meanwhile. On PostgreSQL, in an in-memory database or inside a
 * transaction, the statements simply run in a transaction of the given connection.
 */
export async function heavyWrite(db: Kysely<any>, statements: readonly CompiledQuery[]): Promise<void> {
  const writer = writers.get(db);
  if (writer) {
    try {
      await db.connection().execute(() => runOnThread(writer.file, statements));
    } finally {
      writer.onWrite();
    }
    return;
  }
  const run = async (conn: Kysely<any>) => {
    for (const statement of statements) await conn.executeQuery(statement);
  };
  if (db.isTransaction) await run(db);
  else await db.transaction().execute(run);
}

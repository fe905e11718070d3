// The reader thread's side of reader.ts: a read-only connection to the database file that runs
// the SELECTs posted to it and answers their rows. Runs at the lowest scheduling priority.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import type { ReaderAnswer, ReaderRequest, ReaderSetup } from './reader.js';

const { file, busyTimeoutMs } = workerData as ReaderSetup;
try {
  // Linux: /proc/thread-self -> <pid>/task/<tid>; setpriority() on a tid renices that thread only,
  // so when the CPU is short the event loop (storefront, checkouts) wins and the report waits.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19);
} catch {
  // Elsewhere the thread keeps the process's priority; its work is still off the event loop.
}
const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
db.pragma(`busy_timeout = ${busyTimeoutMs}`);

parentPort!.on('message', ({ id, sql, parameters }: ReaderRequest) => {
  let answer: ReaderAnswer;
  try {
    const statement = db.prepare(sql);
    if (!statement.reader) throw new Error('the reader thread runs statements that return rows only');
    answer = { id, rows: statement.all(...parameters) };
  } catch (err) {
    const { message, code } = err as { message: string; code?: string };
    answer = { id, error: { message, ...(code ? { code } : {}) } };
  }
  parentPort!.postMessage(answer);
});

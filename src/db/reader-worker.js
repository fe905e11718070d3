// A read-only SQLite connection on its own thread (see reader-pool.ts). Plain JavaScript so it
// loads without the TypeScript loader. The thread lowers its own scheduling priority: on a busy
// machine a long report yields the CPU to the event loop that serves the storefront.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

try {
  // Linux: /proc/thread-self -> <pid>/task/<tid>; setpriority() on a tid renices that thread only.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), workerData.nice);
} catch {
  // Other platforms: same priority as the event loop; the work is still off it.
}

const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();

parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (!statement.reader) throw new Error('the reader thread runs queries that return rows only');
      if (statements.size >= 200) statements.delete(statements.keys().next().value);
      statements.set(sql, statement);
    }
    parentPort.postMessage({ id, rows: statement.all(parameters) });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: err.message, code: err.code } });
  }
});

// One heavy write on its own SQLite connection and thread (see heavy-write.ts). Plain JavaScript
// so it loads without the TypeScript loader. Runs the statements it was started with as one
// IMMEDIATE transaction, answers once and ends: a write this heavy is rare, so no thread waits
// for the next one.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -65536');
  db.transaction(() => {
    for (const { sql, parameters } of workerData.statements) {
      const statement = db.prepare(sql);
      if (statement.reader) statement.all(parameters);
      else statement.run(parameters);
    }
  }).immediate();
  parentPort.postMessage({ ok: true });
} catch (err) {
  parentPort.postMessage({ error: { message: err.message, code: err.code } });
} finally {
  db?.close();
}

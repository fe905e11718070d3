// The WAL checkpointer's own connection (see checkpointer.ts). Plain JavaScript so it loads
// without the TypeScript loader. A PASSIVE checkpoint copies committed pages from the WAL into
// the database file as far as no reader still needs them, and never waits for readers or writers.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');

parentPort.on('message', () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ result });
  } catch (err) {
    parentPort.postMessage({ error: { message: err.message, code: err.code } });
  }
});

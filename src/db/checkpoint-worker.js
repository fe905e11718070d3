// The WAL checkpointer's own connection (see checkpointer.ts). Plain JavaScript so it loads
// without the TypeScript loader. A PASSIVE checkpoint copies committed pages from the WAL into
// the database file as far as no reader still needs them, and never waits for readers or writers.
// A RESTART checkpoint (asked for while the main connection is held, so no write comes between)
// copies the rest, and the next write starts the WAL over; it waits for readers at most `restartWaitMs`.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');

parentPort.on('message', ({ id, mode }) => {
  try {
    if (mode === 'restart') db.pragma(`busy_timeout = ${workerData.restartWaitMs}`);
    const [result] = db.pragma(mode === 'restart' ? 'wal_checkpoint(RESTART)' : 'wal_checkpoint(PASSIVE)');
    // After a PASSIVE one: the WAL as it is now, commits made while it ran included.
    const [now] = mode === 'restart' ? [result] : db.pragma('wal_checkpoint(NOOP)');
    parentPort.postMessage({ id, result: { busy: result.busy, log: now.log, checkpointed: now.checkpointed } });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: err.message, code: err.code } });
  } finally {
    if (mode === 'restart') db.pragma('busy_timeout = 1000');
  }
});

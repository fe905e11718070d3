import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/**
 * WAL checkpoints off the event loop (issue 7, T7). By default SQLite checkpoints in whichever
 * commit finds the WAL over 1000 pages: that commit then copies megabytes into the database file
 * and syncs it, and on better-sqlite3 the event loop stands still meanwhile (tens of ms). The main
 * connection's automatic checkpoints are turned off instead, and a worker thread with a
 * connection of its own runs PASSIVE checkpoints: once a second when something was written and
 * the WAL file has passed `thresholdBytes`. Should the thread fail, the main connection
 * checkpoints automatically again, as before.
 */
export class Checkpointer {
  private worker: Worker | null = null;
  private busy = false;
  private written = false;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;
  /** Checkpoints run so far (tests and the bench read it). */
  checkpoints = 0;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly file: string,
    private readonly options: { intervalMs?: number; thresholdBytes?: number } = {},
  ) {
    sqlite.pragma('wal_autocheckpoint = 0');
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 1000);
    this.timer.unref();
  }

  /** Called after every write statement of the main connection. */
  noteWrite(): void {
    this.written = true;
  }

  private walBytes(): number {
    try {
      return statSync(`${this.file}-wal`).size;
    } catch {
      return 0;
    }
  }

  private tick(): void {
    if (this.stopped || this.busy || !this.written) return;
    if (this.walBytes() < (this.options.thresholdBytes ?? 4 * 1024 * 1024)) return;
    this.written = false;
    this.busy = true;
    this.worker ??= this.start();
    this.worker.ref();
    this.worker.postMessage('checkpoint');
  }

  /** Runs a checkpoint now (whatever the WAL's size) and resolves when it is done. */
  checkpointNow(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.worker ??= this.start();
      const worker = this.worker;
      worker.ref();
      worker.once('message', (message: { error?: { message: string } }) => (message.error ? reject(new Error(message.error.message)) : resolve()));
      worker.postMessage('checkpoint');
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: { file: this.file } });
    worker.on('message', (message: { error?: unknown }) => {
      if (!message.error) this.checkpoints++;
      this.busy = false;
      worker.unref();
    });
    const fail = () => {
      if (this.stopped) return;
      this.stopped = true;
      clearInterval(this.timer);
      // Back to SQLite's own checkpoints in the committing connection.
      this.sqlite.pragma('wal_autocheckpoint = 1000');
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    return worker;
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.worker?.terminate();
  }
}

import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** What a checkpoint answers: busy 1 when it could not finish; the frames in the WAL and those copied back, as they are after it. */
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

type Mode = 'passive' | 'restart';

/** Runs `fn` while no statement of the main connection runs (none starts until it settles). */
export type HoldMainConnection = (fn: () => Promise<void>) => Promise<void>;

/**
 * WAL checkpoints off the event loop (issue 7, T7). By default SQLite checkpoints in whichever
 * commit finds the WAL over 1000 pages: that commit then copies megabytes into the database file
 * and syncs it, and on better-sqlite3 the event loop stands still meanwhile (tens of ms). The main
 * connection's automatic checkpoints are turned off instead, and a worker thread with a
 * connection of its own runs PASSIVE checkpoints: once a second when something was written and
 * the WAL file has passed `thresholdBytes`. Should the thread fail, the main connection
 * checkpoints automatically again, as before.
 *
 * A PASSIVE checkpoint copies what was committed when it started; SQLite starts the WAL over only
 * once everything in it was copied back. Under writes that never pause (sustained checkouts) the
 * commits made during each checkpoint are always left over, so the WAL never starts over and
 * grows without end: 900 MB in half a minute of the bench's checkouts. Once the WAL holds more
 * than `limitBytes` of frames, PASSIVE checkpoints run back to back, each copying what came during
 * the one before, until fewer than `leftoverFrames` are left; then a RESTART checkpoint runs while
 * the main connection is held (`holdWith`): no commit comes between, so it copies only that rest,
 * and the next commit writes the WAL from its start again. The file keeps the size it reached
 * (about `limitBytes` and what one checkpoint's time of writes adds): overwriting it is cheaper
 * than growing it again. The main connection's statements wait for the hold asynchronously, as for
 * a transaction (30–60 ms under the bench's sustained checkouts, at most once a second); a reader
 * thread in the middle of a long read is waited for at most `restartWaitMs`, and after such a miss
 * the next try waits until another `limitBytes` have been written.
 */
export class Checkpointer {
  private worker: Worker | null = null;
  /** The tick in progress, if any: ticks never overlap. */
  private current: Promise<void> | null = null;
  private written = false;
  private stopped = false;
  private hold: HoldMainConnection | null = null;
  private restartFrom: number;
  private readonly timer: NodeJS.Timeout | null;
  private readonly waiting = new Map<number, { resolve(result: CheckpointResult): void; reject(err: Error): void }>();
  private nextId = 1;
  private inflight: Promise<CheckpointResult> | null = null;
  /** Checkpoints run so far, and those of them that started the WAL over under a hold (tests read them). */
  checkpoints = 0;
  restarts = 0;
  private readonly pageSize: number;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly file: string,
    /** `schedule: false` starts no timer: the owner (a test) runs the ticks with `runOnce`. */
    private readonly options: {
      intervalMs?: number;
      schedule?: boolean;
      thresholdBytes?: number;
      limitBytes?: number;
      leftoverFrames?: number;
      restartWaitMs?: number;
    } = {},
  ) {
    sqlite.pragma('wal_autocheckpoint = 0');
    this.pageSize = Number(sqlite.pragma('page_size', { simple: true }));
    this.restartFrom = this.limitBytes;
    this.timer = options.schedule === false ? null : setInterval(() => void this.tick(), options.intervalMs ?? 1000);
    this.timer?.unref();
  }

  private get limitBytes(): number {
    return this.options.limitBytes ?? 64 * 1024 * 1024;
  }

  /** How to hold the main connection for a RESTART checkpoint; without it the WAL is only ever checkpointed PASSIVE. */
  holdWith(hold: HoldMainConnection): void {
    this.hold = hold;
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

  /** What the timer runs: a checkpoint when something was written and the WAL has passed the threshold. */
  private tick(): Promise<void> {
    if (this.current) return this.current;
    if (this.stopped || !this.written) return Promise.resolve();
    if (this.walBytes() < (this.options.thresholdBytes ?? 4 * 1024 * 1024)) return Promise.resolve();
    this.written = false;
    this.current = this.checkpoint().finally(() => (this.current = null));
    return this.current;
  }

  /** Runs one tick now, as the timer would (after the one in progress, if any), and resolves when it is done. */
  async runOnce(): Promise<void> {
    while (this.current) await this.current;
    await this.tick();
  }

  private async checkpoint(): Promise<void> {
    try {
      let passive = await this.run('passive');
      const hold = this.hold;
      // The frames written since the WAL last started over (its file keeps the size it reached).
      const bytes = passive.log * this.pageSize;
      if (hold && bytes >= this.restartFrom) {
        // What a hold waits for is what the last PASSIVE checkpoint left: keep that small.
        for (
          let pass = 1;
          pass < 8 && passive.log - passive.checkpointed > (this.options.leftoverFrames ?? 1000);
          pass++
        )
          passive = await this.run('passive');
        let result: CheckpointResult | undefined;
        await hold(async () => {
          result = await this.run('restart');
        });
        if (result?.busy === 0) {
          this.restarts++;
          this.restartFrom = this.limitBytes;
        } else this.restartFrom = bytes + this.limitBytes;
      }
    } catch {
      // A failed checkpoint is tried again after the next tick; a dead thread hands checkpoints back (start).
      this.written = true;
    }
  }

  /** Runs a checkpoint now (whatever the WAL's size) and resolves when it is done. */
  async checkpointNow(): Promise<void> {
    await this.run('passive');
  }

  private run(mode: Mode): Promise<CheckpointResult> {
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    this.inflight = new Promise<CheckpointResult>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, mode });
    });
    return this.inflight;
  }

  private start(): Worker {
    const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
      workerData: { file: this.file, restartWaitMs: this.options.restartWaitMs ?? 100 },
    });
    worker.on('message', (message: { id: number; result?: CheckpointResult; error?: { message: string } }) => {
      const pending = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (this.waiting.size === 0) worker.unref();
      if (message.error) pending?.reject(new Error(message.error.message));
      else {
        this.checkpoints++;
        pending?.resolve(message.result!);
      }
    });
    const fail = (err: Error) => {
      for (const pending of this.waiting.values()) pending.reject(err);
      this.waiting.clear();
      if (this.stopped) return;
      this.stopped = true;
      if (this.timer) clearInterval(this.timer);
      // Back to SQLite's own checkpoints in the committing connection.
      this.sqlite.pragma('wal_autocheckpoint = 1000');
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the checkpoint thread exited (${code})`)));
    return worker;
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    // A checkpoint in flight ends first (and a tick in progress, which may ask for one more).
    // Terminated in the middle of one, the thread's exit was at times never seen by a process with
    // nothing else to do: it ended with the close still pending (node:test cancelled the tests
    // after it, 2 full runs in 3 under load).
    await this.current;
    await this.inflight?.catch(() => undefined);
    this.worker?.ref();
    await this.worker?.terminate();
  }
}

import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/context.js';

/** One kind of background work: the mail outbox, webhook deliveries, invoice expiry, the sweeps. */
export interface Job {
  /** Unique in its runner; what `runOnce` and the log name it by. */
  readonly name: string;
  /** Between a pass and the next, and after a failed pass before it is tried again. */
  readonly intervalMs: number;
  /**
   * Whether the runner's timer runs it. Off (MAIL_WORKER_ENABLED=false, a test's app), it runs
   * only when asked (`runOnce`).
   */
  readonly scheduled: boolean;
  /**
   * A pass that did something is followed by the next at once, not after the interval: an
   * outbox drains its backlog, since more may have come due while it sent.
   */
  readonly drains: boolean;
  /** One pass at `now` (the clock's time when the pass starts); resolves with how much it did. */
  run(now: number): Promise<number>;
  /**
   * Ends the job's own work once its timer is stopped and no pass will start: `pass` settles when
   * the pass under way (if any) does. Without it, the runner waits for that pass.
   */
  stop?(pass: Promise<void>): Promise<void>;
}

/** What the app and tests hold of a job on a runner. */
export interface JobHandle {
  readonly name: string;
  /**
   * Runs a pass now, after the one under way if any, at `now` (default: the clock's time when it
   * starts), and resolves with how much it did; rejects with the pass's failure, and once the
   * runner is stopped. Tests drive background work with it.
   */
  runOnce(now?: number): Promise<number>;
}

export interface JobRunnerOptions {
  /** Where every pass reads its time; a test's clock makes retries and expiries due without a sleep. */
  clock: Clock;
  log: FastifyBaseLogger;
  /**
   * The database's health (src/db/storage-health.ts): a failure it recognises as an outage is
   * logged once there, so the pass logs it at debug only.
   */
  health?: { report(err: unknown): unknown };
}

interface Entry {
  job: Job;
  log: FastifyBaseLogger;
  /** Settles when the last pass queued settles: the next one starts after it, so passes never overlap. */
  tail: Promise<void>;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The one loop of an instance's background work. Each job's passes run one after another, never
 * two at once, whoever asked for them (its timer or `runOnce`); a scheduled job's next pass comes
 * `intervalMs` after the last one ended (at once when it drains and did something); a failed pass
 * is logged and tried again after the interval; the timers never keep the process alive. `stop()`
 * stops every timer, then lets every job stop (the outboxes hand back what they claimed and wait
 * a grace for their sends in flight), so that once it resolves nothing of them touches the
 * database.
 */
export class JobRunner {
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #health: JobRunnerOptions['health'];
  readonly #jobs = new Map<string, Entry>();
  #stopped = false;
  #stopping: Promise<void> | undefined;

  constructor(options: JobRunnerOptions) {
    this.#clock = options.clock;
    this.#log = options.log;
    this.#health = options.health;
  }

  /** Adds a job; its first scheduled pass comes one interval from now. */
  add(job: Job): JobHandle {
    if (this.#stopped) throw new Error(`the job runner is stopped: ${job.name} not added`);
    if (this.#jobs.has(job.name)) throw new Error(`a job named ${job.name} is already on this runner`);
    const entry: Entry = {
      job,
      log: this.#log.child({ job: job.name }),
      tail: Promise.resolve(),
      timer: undefined,
    };
    this.#jobs.set(job.name, entry);
    if (job.scheduled) this.#schedule(entry, job.intervalMs);
    return { name: job.name, runOnce: (now) => this.#pass(entry, now) };
  }

  /** A pass of the job named `name` now: see `JobHandle.runOnce`. */
  runOnce(name: string, now?: number): Promise<number> {
    const entry = this.#jobs.get(name);
    if (!entry) return Promise.reject(new Error(`no job named ${name} on this runner`));
    return this.#pass(entry, now);
  }

  /**
   * Stops every timer, then every job at once, and resolves when all have stopped. Passes asked
   * for after this are refused, those queued behind a running one too.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stopAll();
    return this.#stopping;
  }

  async #stopAll(): Promise<void> {
    this.#stopped = true;
    const entries = [...this.#jobs.values()];
    for (const entry of entries) clearTimeout(entry.timer);
    await Promise.all(
      entries.map(async (entry) => {
        try {
          if (entry.job.stop) await entry.job.stop(entry.tail);
          else await entry.tail;
        } catch (err) {
          entry.log.error({ err }, 'the job did not stop cleanly');
        }
      }),
    );
  }

  #pass(entry: Entry, now?: number): Promise<number> {
    if (this.#stopped) return Promise.reject(this.#stoppedError(entry));
    const pass = entry.tail.then(() => {
      // Queued behind a pass that was running when the runner stopped: never started.
      if (this.#stopped) throw this.#stoppedError(entry);
      return entry.job.run(now ?? this.#clock.now());
    });
    entry.tail = pass.then(
      () => undefined,
      () => undefined,
    );
    return pass;
  }

  #schedule(entry: Entry, delayMs: number): void {
    if (this.#stopped) return;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.#pass(entry).then(
        (did) => this.#schedule(entry, entry.job.drains && did > 0 ? 0 : entry.job.intervalMs),
        (err: unknown) => {
          if (err instanceof JobStopped) return;
          // A database outage is logged once by the database's health (storage-health.ts), not at every pass.
          if (this.#health?.report(err))
            entry.log.debug({ err }, 'background job pass failed; retried after its interval');
          else entry.log.error({ err }, 'background job pass failed; retried after its interval');
          this.#schedule(entry, entry.job.intervalMs);
        },
      );
    }, delayMs);
    entry.timer.unref();
  }

  #stoppedError(entry: Entry): Error {
    return new JobStopped(entry.job.name);
  }
}

/** A job on a runner of its own: what a second instance (in tests, the bench) runs. */
export interface StandaloneJob extends JobHandle {
  /** Stops the job as its runner's `stop()` does. */
  stop(): Promise<void>;
}

export function runAlone(job: Job, options: JobRunnerOptions): StandaloneJob {
  const runner = new JobRunner(options);
  const { name, runOnce } = runner.add(job);
  return { name, runOnce, stop: () => runner.stop() };
}

/** A pass asked for once the runner stopped. */
export class JobStopped extends Error {
  constructor(name: string) {
    super(`the ${name} job is stopped`);
  }
}

import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/context.js';

const SECOND = 1000;
/**
 * How long an outbox claim lasts unless its worker renews it. A live worker renews the claims it
 * holds every `HEARTBEAT_MS`, however long a send takes; after a crash (kill -9, a lost machine)
 * its rows are taken back by any worker's next pass or beat once this has passed.
 */
export const CLAIM_LEASE_MS = 30 * SECOND;
/** A third of the lease: two beats may fail (a slow database) before a live claim lapses. */
export const HEARTBEAT_MS = 10 * SECOND;
/**
 * How long a stopping worker waits for its sends in flight (their lease covers the rest). The
 * outboxes stop side by side, so this is what they take together: inside the server's 10 s
 * allowance for the workers' stop (`longestStopMs`, src/config.ts).
 */
export const STOP_GRACE_MS = 5 * SECOND;

/** An outbox's own SQL for its claims, in its repository. */
export interface ClaimStore<C> {
  /** Pushes the lease of these claims, where they are still this worker's, to `leaseUntil`. */
  renew(claims: C[], leaseUntil: number): Promise<void>;
  /** Puts every claim whose lease ended by `now` (any worker's) back in the queue; answers how many. */
  recoverLapsed(now: number): Promise<number>;
}

export interface LeaseOptions {
  clock: Clock;
  /** The outbox's logger (its `component`). */
  log: FastifyBaseLogger;
  /** How often held claims are renewed; default `HEARTBEAT_MS` (tests shorten it). */
  heartbeatMs?: number | undefined;
  /** How long `stop` waits for sends in flight; default `STOP_GRACE_MS` (tests lengthen it). */
  stopGraceMs?: number | undefined;
}

/**
 * The claim discipline both outboxes (mail, webhook deliveries) follow, for the rows one worker
 * claimed: each claim is taken for `CLAIM_LEASE_MS` (`leaseUntil`) and held here by id while its
 * send runs; the heartbeat renews every held claim and meanwhile takes back other workers' lapsed
 * ones; a stopping worker waits its grace for its sends in flight, then stops beating. Held rows
 * are never handed back early here: what was not started is the outbox's to release.
 *
 * The heartbeat has a timer of its own rather than being a job of the runner: it must beat while
 * the outbox's pass runs (a send can take longer than a lease) and during the stop grace, and a
 * job's passes never overlap.
 */
export class ClaimLeases<C> {
  /** Every row this worker holds a claim on, by id: what the heartbeat renews. */
  readonly held = new Map<number, C>();
  readonly #store: ClaimStore<C>;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #stopGraceMs: number;
  readonly #heartbeat: NodeJS.Timeout;
  #beating = false;

  constructor(store: ClaimStore<C>, options: LeaseOptions) {
    this.#store = store;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
    this.#heartbeat = setInterval(() => void this.beat(), options.heartbeatMs ?? HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** The end of a claim taken (or renewed) at `now`. */
  leaseUntil(now: number): number {
    return now + CLAIM_LEASE_MS;
  }

  /** Claims that lapsed by `now` go back to the queue; at the start of every pass and at every beat. */
  async recoverLapsed(now: number): Promise<number> {
    const recovered = await this.#store.recoverLapsed(now);
    if (recovered > 0) this.#log.warn({ recovered }, 'claims abandoned mid-send (a worker died) were queued again');
    return recovered;
  }

  /** The heartbeat: renews the claims held, and takes back other workers' lapsed ones meanwhile. */
  async beat(): Promise<void> {
    if (this.#beating || this.held.size === 0) return;
    this.#beating = true;
    try {
      const now = this.#clock.now();
      await this.#store.renew([...this.held.values()], this.leaseUntil(now));
      await this.recoverLapsed(now);
    } catch (err) {
      this.#log.warn({ err }, 'claims not renewed; retrying at the next beat');
    } finally {
      this.#beating = false;
    }
  }

  /**
   * For a worker that claims nothing more: waits for `sending` (its pass) at most the grace, then
   * stops the heartbeat. Sends still in flight are sent again by another worker once their lease lapses.
   */
  async stop(sending: Promise<unknown>): Promise<void> {
    let grace: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      grace = setTimeout(() => resolve(true), this.#stopGraceMs);
      grace.unref();
    });
    const ended = sending.then(
      () => false,
      () => false,
    );
    if (await Promise.race([ended, timedOut])) {
      this.#log.warn(
        { inFlight: this.held.size, leaseMs: CLAIM_LEASE_MS },
        'stopped with sends in flight; they are sent again once their claim lease lapses',
      );
    }
    clearTimeout(grace);
    clearInterval(this.#heartbeat);
  }
}

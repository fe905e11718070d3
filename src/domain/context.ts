import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';

type Conn = Kysely<Database>;

/** Where the service reads the time. Tests give the app one they advance (test/helpers/clock.ts) instead of sleeping. */
export interface Clock {
  /** Epoch milliseconds, as every timestamp the service stores. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * What a service works with, built once in `buildApp` (src/app.ts; the CLI builds its own) and
 * passed explicitly: the database, the validated configuration and the clock. Inside a write
 * transaction the services work with a `WriteContext` whose `db` is the transaction.
 */
export interface Context {
  /** The app's database handle; inside a transaction, the transaction. */
  readonly db: Conn;
  readonly config: Config;
  readonly clock: Clock;
}

/** The context inside a `writeTransaction` (src/domain/dispatcher.ts): domain events may be emitted on it. */
export interface WriteContext extends Context {
  /** Queues `run` for after the transaction commits, once per `key`; dropped when it rolls back. */
  afterCommit(key: string, run: () => Promise<void>): void;
}

export function createContext(db: Conn, config: Config, clock: Clock = systemClock): Context {
  return Object.freeze({ db, config, clock });
}

/** The context as it is at `ms`: a pass of a background job works at the moment it was run for, whatever the clock says meanwhile. */
export function atTime(ctx: Context, ms: number): Context {
  return Object.freeze({ ...ctx, clock: { now: () => ms } });
}

/** The same context on another handle of the same database (a transaction, a second connection). */
export function onConnection(ctx: Context, db: Conn): Context {
  return Object.freeze({ db, config: ctx.config, clock: ctx.clock });
}

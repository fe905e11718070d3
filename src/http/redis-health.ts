import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

/**
 * Redis is an accelerator, not a dependency of correctness (issue 33). While it cannot be used
 * (its connection is down, or a command failed), each use falls back and is counted here:
 * request rate limits and failed-authentication and sign-in budgets count in this process's
 * memory, public pages are computed for every request (the page cache is bypassed, and shops
 * changed meanwhile are announced to the other instances once Redis answers again), and
 * real-time visits are not recorded. The client (src/app.ts) fails at once while disconnected,
 * so no request waits on a dead Redis.
 */
export type RedisUse = 'rate_limit' | 'auth_limits' | 'page_cache' | 'visits';

export const redisUses: readonly RedisUse[] = ['rate_limit', 'auth_limits', 'page_cache', 'visits'];

export interface RedisHealth {
  /** Whether the connection is ready for commands (one may still fail). */
  readonly up: boolean;
  /** A use served without Redis; `err` is the command's failure, if one was sent. */
  fellBack(use: RedisUse, err?: unknown): void;
  /** Fallbacks since the start, per use (the operator's metrics). */
  readonly fallbacks: ReadonlyMap<RedisUse, number>;
}

const healths = new WeakMap<Redis, RedisHealth>();

/** The health of a client: one per client, whoever asks first. */
export function redisHealth(redis: Redis): RedisHealth {
  let health = healths.get(redis);
  if (!health) {
    const fallbacks = new Map<RedisUse, number>(redisUses.map((use) => [use, 0]));
    health = {
      get up() {
        return redis.status === 'ready';
      },
      fallbacks,
      fellBack(use, err) {
        fallbacks.set(use, (fallbacks.get(use) ?? 0) + 1);
        // A connected Redis that stopped answering (a command ran past `commandTimeout`): the
        // connection is dropped and made again, so the next requests fail at once instead of each
        // waiting out the timeout; it is ready again once Redis answers its ready check.
        if (err instanceof Error && err.message === 'Command timed out' && redis.status === 'ready')
          redis.disconnect(true);
      },
    };
    healths.set(redis, health);
  }
  return health;
}

/**
 * Logs an outage once: a warning when the connection is lost (or the first one cannot be made),
 * naming what falls back, and an info line when Redis answers again; not a line per request or
 * per reconnection attempt.
 */
export function logRedisOutages(redis: Redis, log: FastifyBaseLogger): void {
  let down = false;
  let lastError: Error | undefined;
  // Without an error listener ioredis prints every failed attempt to stderr, outside the log.
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  redis.on('reconnecting', () => {
    if (down) return;
    down = true;
    log.warn(
      { err: lastError },
      'Redis does not answer; until it does, rate limits and sign-in limits count in this instance’s memory, ' +
        'public pages are computed for every request (page cache bypassed), real-time visits are not recorded; reconnecting',
    );
  });
  redis.on('ready', () => {
    lastError = undefined;
    if (!down) return;
    down = false;
    log.info('Redis answers again: shared rate limits, page cache and real-time visits resume');
  });
}

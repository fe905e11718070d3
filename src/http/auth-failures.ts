import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Failed authentications per client IP (issue 19, item 12). The owner rate limit is keyed per
 * API key, so every guessed key had a fresh budget and key guessing was never limited.
 *
 * An IP that presented `max` unknown keys within the window is refused with 429 on every owner
 * request until the window ends — before its key is looked at, a valid one included: answering a
 * right guess with 200 while wrong ones get 429 would let the guessing go on. Counters live in
 * Redis when `REDIS_URL` is set, so instances share them; otherwise in this process's memory.
 * `@fastify/rate-limit` can only count and check in one step; this needs to check before the key
 * is verified and count only the failures, which rate-limiter-flexible's `get`/`penalty` do.
 */
export interface AuthFailureLimiter {
  /** Seconds until the IP may try again, or null when it is not blocked. */
  blockedFor(ip: string): Promise<number | null>;
  recordFailure(ip: string): Promise<void>;
  readonly max: number;
}

export function createAuthFailureLimiter(options: { max: number; windowMs: number; redis: Redis | null; keyPrefix: string }): AuthFailureLimiter | null {
  const { max } = options;
  if (max === 0) return null;
  const settings = { points: max, duration: Math.ceil(options.windowMs / 1000), keyPrefix: `${options.keyPrefix}authfail` };
  const limiter: RateLimiterAbstract = options.redis ? new RateLimiterRedis({ ...settings, storeClient: options.redis }) : new RateLimiterMemory(settings);
  return {
    max,
    async blockedFor(ip) {
      const state = await limiter.get(ip);
      return state && state.consumedPoints >= max ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : null;
    },
    async recordFailure(ip) {
      await limiter.penalty(ip, 1);
    },
  };
}

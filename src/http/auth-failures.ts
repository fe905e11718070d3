import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { clientNet } from './client-net.js';
import { RateLimitedError } from './errors.js';
import { redisHealth } from './redis-health.js';

/**
 * Failed authentications per client (issue 19, item 12). The owner rate limit is keyed per API
 * key, so every guessed key had a fresh budget and key guessing was never limited.
 *
 * A client that presented `max` unknown keys within the window gets 429 for every further
 * unknown key until the window ends (auth.ts); a valid key is never refused for it. A client is
 * its IPv4 address, or the /64 prefix of its IPv6 address (one host is usually given a whole
 * /64, and would otherwise have a fresh budget per address). Counters live in Redis when
 * `REDIS_URL` is set, so instances share them; otherwise (and while Redis is down) in this
 * process's memory.
 * `@fastify/rate-limit` counts and checks in one step; this counts only failures, which
 * rate-limiter-flexible's `get`/`penalty` do.
 */
export interface AuthFailureLimiter {
  /** Seconds until the IP may try again, or null when it is not blocked. */
  blockedFor(ip: string): Promise<number | null>;
  recordFailure(ip: string): Promise<void>;
  readonly max: number;
}

export function createAuthFailureLimiter(options: {
  max: number;
  windowMs: number;
  redis: Redis | null;
  keyPrefix: string;
}): AuthFailureLimiter | null {
  const { max } = options;
  if (max === 0) return null;
  const limiter = createCounter(options, {
    points: max,
    seconds: Math.ceil(options.windowMs / 1000),
    name: 'authfail',
  });
  return {
    max,
    async blockedFor(ip) {
      const state = await limiter.get(clientOf(ip));
      return state && state.consumedPoints >= max ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : null;
    },
    async recordFailure(ip) {
      await limiter.penalty(clientOf(ip), 1);
    },
  };
}

/** The counter's key: the client as every abuse limit counts it (client-net.ts: IPv4, or an IPv6 address's /64). */
export function clientOf(ip: string): string {
  return clientNet(ip) ?? ip;
}

/**
 * A counter of attempts (rate-limiter-flexible): in Redis when the server has one, so instances
 * share it; otherwise in this process. `points` per `seconds`, keys under `keyPrefix` + `name`.
 * While Redis cannot be used (its connection is down, or a command failed), the counter is kept in
 * this process instead (rate-limiter-flexible's insurance limiter), with the same budget, so that
 * an outage neither refuses every attempt nor lifts the limit.
 */
export function createCounter(
  store: { redis: Redis | null; keyPrefix: string },
  counter: { points: number; seconds: number; name: string },
): RateLimiterAbstract {
  const settings = {
    points: counter.points,
    duration: counter.seconds,
    keyPrefix: `${store.keyPrefix}${counter.name}`,
  };
  if (!store.redis) return new RateLimiterMemory(settings);
  const health = redisHealth(store.redis);
  return new RateLimiterRedis({
    ...settings,
    storeClient: store.redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new FallbackCounter(settings, () => health.fellBack('auth_limits')),
  });
}

/** The in-process counter a Redis counter falls back to: every call it answers is a fallback. */
class FallbackCounter extends RateLimiterMemory {
  constructor(
    settings: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly fellBack: () => void,
  ) {
    super(settings);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>) {
    this.fellBack();
    return super.consume(...args);
  }

  override penalty(...args: Parameters<RateLimiterMemory['penalty']>) {
    this.fellBack();
    return super.penalty(...args);
  }

  override reward(...args: Parameters<RateLimiterMemory['reward']>) {
    this.fellBack();
    return super.reward(...args);
  }

  override get(...args: Parameters<RateLimiterMemory['get']>) {
    this.fellBack();
    return super.get(...args);
  }

  override delete(...args: Parameters<RateLimiterMemory['delete']>) {
    this.fellBack();
    return super.delete(...args);
  }
}

/** Takes a point of `key`'s budget; past it, a 429 whose message says when to retry (and `Retry-After`). */
export async function consumeOrRefuse(counter: RateLimiterAbstract, key: string, message: string): Promise<void> {
  try {
    await counter.consume(key);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw new RateLimitedError(`${message}; retry in ${seconds} s.`, seconds);
  }
}

/** Wrong storefront passwords one client may try per shop per window (15 minutes). */
export const STOREFRONT_GUESSES_PER_CLIENT = 10;
/** Wrong storefront passwords a shop takes per window over every client: the backstop against guessing spread over many addresses. */
export const STOREFRONT_GUESSES_PER_SHOP = 100;
/** The window of the storefront password counters, in seconds. */
export const STOREFRONT_GUESS_WINDOW_SECONDS = 15 * 60;

/**
 * How often a shop's storefront password may be tried (issue 36, L5: 200 guesses went through,
 * each an scrypt). Each comparison takes a point from the client's budget for the shop and from
 * the shop's budget over all clients BEFORE the password is compared; past either it is a 429
 * and nothing is compared. A right password gives both points back, so only wrong ones count.
 * A buyer who has unlocked the shop is not asked again (the storefront's unlock cookie, the
 * public API's remembered keys), so a guesser who exhausts the shop's budget keeps out only new
 * visitors, for at most the window. Counters as createCounter keeps them.
 */
export interface PasswordGuessLimits {
  take(shopId: number, ip: string | null | undefined): Promise<void>;
  succeeded(shopId: number, ip: string | null | undefined): Promise<void>;
}

/** Who is trying a storefront password: the guess limits and the client's address. */
export interface PasswordGuesser {
  limits: PasswordGuessLimits;
  ip: string | null | undefined;
}

export function createPasswordGuessLimits(store: { redis: Redis | null; keyPrefix: string }): PasswordGuessLimits {
  const seconds = STOREFRONT_GUESS_WINDOW_SECONDS;
  const perClient = createCounter(store, { points: STOREFRONT_GUESSES_PER_CLIENT, seconds, name: 'shoppw-client' });
  const perShop = createCounter(store, { points: STOREFRONT_GUESSES_PER_SHOP, seconds, name: 'shoppw-shop' });
  const clientKey = (shopId: number, ip: string | null | undefined) => `${shopId} ${ip ? clientOf(ip) : 'unknown'}`;
  return {
    async take(shopId, ip) {
      await consumeOrRefuse(
        perClient,
        clientKey(shopId, ip),
        'Too many wrong passwords for this shop from this address',
      );
      try {
        await consumeOrRefuse(perShop, String(shopId), 'Too many wrong passwords for this shop');
      } catch (err) {
        await perClient.reward(clientKey(shopId, ip), 1);
        throw err;
      }
    },
    async succeeded(shopId, ip) {
      await perClient.reward(clientKey(shopId, ip), 1);
      await perShop.reward(String(shopId), 1);
    },
  };
}

import { createHash } from 'node:crypto';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { apiKeyFromHeader, sessionTokenFromCookies } from './auth.js';
import { createAuthFailureLimiter } from './auth-failures.js';
import { AppError } from './errors.js';
import { redisHealth } from './redis-health.js';

/**
 * Rate limits: per API key or web admin session on owner paths, per client IP on public ones
 * (routes with `config.public`). A request with an `Authorization` header is counted by its key
 * (the session cookie is then not what authenticates it); one without, by its session cookie.
 * Counters live in Redis when `REDIS_URL` is set, so instances share them; while Redis cannot be
 * used, in this process (`sharedOrLocalStore`). A maximum of 0 turns that family's limit off.
 * Discovery routes opt out with `rateLimit: false`. Failed authentications are limited per client
 * IP as well (auth-failures.ts).
 */
function limitKey(request: FastifyRequest): string {
  if (!request.routeOptions.config.public) {
    const { authorization, cookie } = request.headers;
    const key = apiKeyFromHeader(authorization);
    if (key) return `key:${sha256(key).slice(0, 32)}`;
    const session = authorization === undefined ? sessionTokenFromCookies(cookie) : undefined;
    if (session) return `session:${sha256(session).slice(0, 32)}`;
  }
  return `ip:${request.ip}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  const { ownerMax, publicMax, windowMs, authFailuresMax } = config.rateLimit;
  app.decorate(
    'authFailures',
    createAuthFailureLimiter({
      max: authFailuresMax,
      windowMs,
      redis: app.redis,
      keyPrefix: `${config.redisKeyPrefix}rl:`,
    }),
  );
  if (ownerMax === 0 && publicMax === 0) return;
  const unlimited = Number.MAX_SAFE_INTEGER;
  await app.register(rateLimit, {
    global: true,
    timeWindow: windowMs,
    max: (request) => {
      const max = request.routeOptions.config.public ? publicMax : ownerMax;
      return max === 0 ? unlimited : max;
    },
    keyGenerator: limitKey,
    enableDraftSpec: true,
    nameSpace: `${config.redisKeyPrefix}rl:`,
    ...(app.redis ? { store: sharedOrLocalStore(app.redis, `${config.redisKeyPrefix}rl:`) } : {}),
    errorResponseBuilder: (_request, context) =>
      new AppError(429, 'rate_limited', `Rate limit exceeded; retry in ${Math.ceil(context.ttl / 1000)} s.`),
  });
}

type Counted = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Counted) => void;

/** The Redis store's script (as @fastify/rate-limit's own, same keys): a fixed window from the first request. */
const COUNT_IN_WINDOW = `
  local current = redis.call('INCR', KEYS[1])
  local ttl = tonumber(ARGV[1])
  if current == 1 then redis.call('PEXPIRE', KEYS[1], ttl) else ttl = redis.call('PTTL', KEYS[1]) end
  return {current, ttl}
`;

/** At most this many keys are counted in memory while Redis is down; the least recently seen go first. */
const LOCAL_KEYS = 5000;

/** A fixed window per key in this process (as @fastify/rate-limit's LocalStore). */
class LocalCounts {
  private readonly windows = new Map<string, { count: number; startedAt: number }>();

  count(key: string, timeWindow: number): Counted {
    const now = Date.now();
    let window = this.windows.get(key);
    this.windows.delete(key);
    if (!window || window.startedAt + timeWindow <= now) window = { count: 0, startedAt: now };
    window.count++;
    this.windows.set(key, window);
    if (this.windows.size > LOCAL_KEYS) this.windows.delete(this.windows.keys().next().value!);
    return { current: window.count, ttl: window.startedAt + timeWindow - now };
  }
}

/**
 * The rate limit's store with Redis: counts in Redis, shared by every instance; a request that
 * Redis cannot count (its connection is down, or the command failed) is counted in this
 * process instead, with the same maximum and window, so that an outage neither lets every request
 * through nor refuses them all. Each instance then limits on its own until Redis is back.
 */
function sharedOrLocalStore(redis: Redis, nameSpace: string): FastifyRateLimitStoreCtor {
  const health = redisHealth(redis);
  redis.defineCommand('shopdRateLimit', { numberOfKeys: 1, lua: COUNT_IN_WINDOW });
  const shared = redis as unknown as { shopdRateLimit(key: string, ttl: number): Promise<[number, number]> };

  class SharedOrLocalStore implements FastifyRateLimitStore {
    private readonly local = new LocalCounts();

    constructor(
      _options: unknown,
      private readonly prefix = nameSpace,
    ) {}

    incr(key: string, callback: Callback, timeWindow?: number): void {
      const ms = timeWindow!; // the plugin always passes the route's window
      if (!health.up) {
        health.fellBack('rate_limit');
        callback(null, this.local.count(key, ms));
        return;
      }
      shared.shopdRateLimit(this.prefix + key, ms).then(
        ([current, ttl]) => callback(null, { current, ttl }),
        (err: unknown) => {
          health.fellBack('rate_limit', err);
          callback(null, this.local.count(key, ms));
        },
      );
    }

    /** A route with a limit of its own (none so far) counts apart, as with @fastify/rate-limit's RedisStore. */
    child(options: unknown): FastifyRateLimitStore {
      const route = (options as { routeInfo?: { method?: string; url?: string } }).routeInfo;
      return new SharedOrLocalStore(options, `${this.prefix}${route?.method ?? ''}${route?.url ?? ''}-`);
    }
  }
  return SharedOrLocalStore;
}

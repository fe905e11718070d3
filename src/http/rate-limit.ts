import { createHash } from 'node:crypto';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { apiKeyFromHeader, sessionTokenFromCookies } from './auth.js';
import { createAuthFailureLimiter } from './auth-failures.js';
import { clientNet } from './client-net.js';
import { AppError } from './errors.js';
import { redisHealth } from './redis-health.js';

/**
 * Rate limits: per API key or web admin session on owner paths, per client (IPv4 address or IPv6
 * /64) on public ones
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
  // An IPv6 client is its /64 (client-net.ts): fresh addresses of one host get no fresh budget.
  return `ip:${clientNet(request.ip) ?? request.ip}`;
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

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** At most this many keys are counted in memory while Redis is down; the least recently seen go first. */
const LOCAL_KEYS = 5000;

/**
 * The rate limit's store with Redis: @fastify/rate-limit's own Redis store, shared by every
 * instance; a request that Redis cannot count (its connection is down, or the command failed) is
 * counted by the plugin's in-process store instead, with the same maximum and window, so that an
 * outage neither lets every request through nor refuses them all. Each instance then limits on its
 * own until Redis is back.
 */
function sharedOrLocalStore(redis: Redis, nameSpace: string): FastifyRateLimitStoreCtor {
  const health = redisHealth(redis);

  class SharedOrLocalStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      private readonly shared = new RedisStore(false, false, redis, nameSpace),
      private readonly local = new LocalStore(false, false, LOCAL_KEYS),
    ) {}

    incr(key: string, callback: Callback, timeWindow?: number, max?: number): void {
      const countHere = () => this.local.incr(key, callback, timeWindow, max);
      if (!health.up) {
        health.fellBack('rate_limit');
        countHere();
        return;
      }
      this.shared.incr(
        key,
        (err, result) => {
          if (err) {
            health.fellBack('rate_limit', err);
            countHere();
          } else callback(null, result);
        },
        timeWindow,
        max,
      );
    }

    /** A route with a limit of its own (none so far) counts apart, as with the plugin's stores. */
    child(options: unknown): FastifyRateLimitStore {
      return new SharedOrLocalStore(options, this.shared.child(options), this.local.child(options));
    }
  }
  return SharedOrLocalStore;
}

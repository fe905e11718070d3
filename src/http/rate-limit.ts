import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { apiKeyFromHeader } from './auth.js';
import { createAuthFailureLimiter } from './auth-failures.js';
import { AppError } from './errors.js';

/**
 * Rate limits: per API key on owner paths, per client IP on public ones (routes with
 * `config.public`). Counters live in Redis when `REDIS_URL` is set, so instances share them.
 * A maximum of 0 turns that family's limit off. Discovery routes opt out with `rateLimit: false`.
 * Failed authentications are limited per client IP as well (auth-failures.ts).
 */
function limitKey(request: FastifyRequest): string {
  const key = request.routeOptions.config.public ? undefined : apiKeyFromHeader(request.headers.authorization);
  if (!key) return `ip:${request.ip}`;
  return `key:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

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
    ...(app.redis ? { redis: app.redis } : {}),
    errorResponseBuilder: (_request, context) =>
      new AppError(429, 'rate_limited', `Rate limit exceeded; retry in ${Math.ceil(context.ttl / 1000)} s.`),
  });
}

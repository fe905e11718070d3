import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { apiKeyFromHeader, sessionTokenFromCookies } from './auth.js';
import { createAuthFailureLimiter } from './auth-failures.js';
import { AppError } from './errors.js';

/**
 * Rate limits: per API key or web admin session on owner paths, per client IP on public ones
 * (routes with `config.public`). A request with an `Authorization` header is counted by its key
 * (the session cookie is then not what authenticates it); one without, by its session cookie.
 * Counters live in Redis when `REDIS_URL` is set, so instances share them. A maximum of 0 turns
 * that family's limit off. Discovery routes opt out with `rateLimit: false`. Failed
 * authentications are limited per client IP as well (auth-failures.ts).
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
    ...(app.redis ? { redis: app.redis } : {}),
    errorResponseBuilder: (_request, context) =>
      new AppError(429, 'rate_limited', `Rate limit exceeded; retry in ${Math.ceil(context.ttl / 1000)} s.`),
  });
}

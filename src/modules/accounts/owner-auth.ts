import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyFromHeader } from '../../http/auth.js';
import { AppError, ForbiddenError, UnauthorizedError } from '../../http/errors.js';
import { authenticateApiKey } from './service.js';

const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * onRequest hook of the owner scope: 401 without a valid key, 403 when the key lacks the call's
 * scope, 429 for an unknown key from a client that presented too many of them. A valid key is
 * never refused for what others sent from its address (behind a proxy, or one office's NAT, one
 * guesser would otherwise lock every owner out): a key is 256 random bits, so the limit is there
 * to stop the guessing's load and noise, not a guess that could succeed.
 */
export async function authenticateOwner(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const key = apiKeyFromHeader(request.headers.authorization);
  const principal = key ? await authenticateApiKey(request.server.db.kysely, key) : undefined;
  if (!principal) {
    // A missing key is a client that has not configured one; an unknown key may be a guess.
    const failures = request.server.authFailures;
    if (key && failures) {
      const blockedFor = await failures.blockedFor(request.ip);
      if (blockedFor !== null) {
        void reply.headers({
          'retry-after': String(blockedFor),
          'ratelimit-limit': String(failures.max),
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(blockedFor),
        });
        throw new AppError(
          429,
          'rate_limited',
          `Too many requests with unknown API keys from this address; retry in ${blockedFor} s.`,
        );
      }
      await failures.recordFailure(request.ip);
    }
    throw new UnauthorizedError();
  }
  const needed = readOnlyMethods.has(request.method) ? 'read' : 'write';
  if (!principal.scopes.has(needed)) throw new ForbiddenError(`This API key lacks the "${needed}" scope.`);
  request.principal = principal;
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey } from '../modules/accounts/service.js';
import { findShopOfAccount } from '../modules/shops/repository.js';
import type { ShopRow } from '../modules/shops/shops.table.js';
import { AppError, ForbiddenError, NotFoundError, UnauthorizedError } from './errors.js';

/** The key from `Authorization: Bearer <key>` or, as the original clients send it, `Authorization: <key>`. */
export function apiKeyFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^bearer\s+(.+)$/i.exec(header.trim());
  const key = (match ? match[1]! : header).trim();
  return key.length > 0 && key.length <= 200 ? key : undefined;
}

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

/**
 * preHandler hook of the owner scope: resolves `{shopId}` to a shop of the caller's account.
 * A shop of another account is a 404, exactly like one that does not exist.
 */
export async function loadOwnedShop(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const shopId = (request.params as { shopId?: number } | undefined)?.shopId;
  if (shopId === undefined || !request.principal) return;
  const shop = await findShopOfAccount(request.server.db.kysely, request.principal.accountId, shopId);
  if (!shop) throw new NotFoundError('Shop');
  request.shop = shop;
}

/** The shop of an owner route; only callable on routes with a `{shopId}` segment. */
export function currentShop(request: FastifyRequest): ShopRow {
  if (!request.shop) throw new Error('currentShop() called on a route without a resolved {shopId}');
  return request.shop;
}

export function currentAccountId(request: FastifyRequest): number {
  if (!request.principal) throw new Error('currentAccountId() called outside the owner scope');
  return request.principal.accountId;
}

import type { FastifyRequest } from 'fastify';

// The owner scope's hooks live with what they read: authenticateOwner in the accounts module,
// loadOwnedShop in the shops module. Here is what routes and the rate limit need of them.

/** The key from `Authorization: Bearer <key>` or, as the original clients send it, `Authorization: <key>`. */
export function apiKeyFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^bearer\s+(.+)$/i.exec(header.trim());
  const key = (match ? match[1]! : header).trim();
  return key.length > 0 && key.length <= 200 ? key : undefined;
}

/** The shop of an owner route; only callable on routes with a `{shopId}` segment. */
export function currentShop(request: FastifyRequest): NonNullable<FastifyRequest['shop']> {
  if (!request.shop) throw new Error('currentShop() called on a route without a resolved {shopId}');
  return request.shop;
}

export function currentAccountId(request: FastifyRequest): number {
  if (!request.principal) throw new Error('currentAccountId() called outside the owner scope');
  return request.principal.accountId;
}

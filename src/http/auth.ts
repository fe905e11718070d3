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

/** The cookie of the owner's web admin session (the accounts module's owner-auth.ts). */
export const SESSION_COOKIE = 'shopd_session';

/**
 * The session token of a `Cookie` header (the first `shopd_session`, as cookie parsers take it),
 * read from the raw header: the rate limit needs it before any cookie plugin has run.
 */
export function sessionTokenFromCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === SESSION_COOKIE) {
      const token = pair.slice(at + 1).trim();
      return token.length > 0 && token.length <= 200 ? token : undefined;
    }
  }
  return undefined;
}

/** The shop of an owner route; only callable on routes with a `{shopId}` segment. */
export function currentShop(request: FastifyRequest): NonNullable<FastifyRequest['shop']> {
  if (!request.shop) throw new Error('currentShop() called on a route without a resolved {shopId}');
  return request.shop;
}

/** Who calls an owner route: an API key or a web admin session of an account. */
export function currentPrincipal(request: FastifyRequest): NonNullable<FastifyRequest['principal']> {
  if (!request.principal) throw new Error('currentPrincipal() called outside the owner scope');
  return request.principal;
}

export function currentAccountId(request: FastifyRequest): number {
  return currentPrincipal(request).accountId;
}

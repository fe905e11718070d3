import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findSession } from '../../src/modules/customer-sessions/index.js';
import { buyerBalance } from '../../src/modules/customers/index.js';
import { fromMinorUnits } from '../../src/schemas/money.js';
import type { Site } from './site.js';

/**
 * The storefront's signed-in buyer: the customer session (src/modules/customer-sessions) whose
 * token a cookie of the shop holds. httpOnly (no script reads it), SameSite=Lax (another site's
 * form posts do not carry it; the forms carry a CSRF token too), scoped to the shop's path, and
 * Secure when the server's PUBLIC_URL is https. The cookie holds the token itself; the database
 * only its hash.
 */
export interface SignedInCustomer {
  email: string;
  /** The shop's customer with that address; null before their first order. */
  customerId: number | null;
  /** The store balance in the shop currency, in major units as the pages show amounts. */
  balance: number;
  currency: string;
  /** The session, to sign out. */
  sessionId: number;
}

export function customerCookieName(shopId: number): string {
  return `shopd_customer_${shopId}`;
}

function cookieOptions(app: FastifyInstance, site: Site) {
  return {
    path: site.base || '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: app.config.publicUrl.startsWith('https:'),
  };
}

/** Keeps the session token in the shop's cookie until the session ends. */
export function rememberSession(app: FastifyInstance, reply: FastifyReply, site: Site, token: string, expiresAt: Date) {
  void reply.setCookie(customerCookieName(site.shop.id), token, { ...cookieOptions(app, site), expires: expiresAt });
}

export function forgetSession(app: FastifyInstance, reply: FastifyReply, site: Site) {
  void reply.clearCookie(customerCookieName(site.shop.id), cookieOptions(app, site));
}

/**
 * The buyer signed in to this storefront request's shop, or null (no cookie, or a token that
 * opens no live session of this shop). For any storefront page (checkout offers the balance).
 */
export async function currentCustomer(app: FastifyInstance, request: FastifyRequest): Promise<SignedInCustomer | null> {
  const site = request.site;
  const token = site ? request.cookies?.[customerCookieName(site.shop.id)] : undefined;
  if (!site || !token) return null;
  const session = await findSession(app.ctx, site.shop.id, token);
  if (!session) return null;
  const buyer = await buyerBalance(app.ctx, site.shop.id, session.email);
  return {
    email: session.email,
    customerId: buyer?.customerId ?? null,
    balance: fromMinorUnits(buyer?.balance ?? 0, site.shop.currency),
    currency: site.shop.currency,
    sessionId: session.id,
  };
}

import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { type CustomerSession, findSession } from './service.js';

/** The token of `Authorization: Bearer <token>`; undefined when the header is missing or of another form. */
export function sessionTokenOf(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/**
 * preHandler of the public scope: on routes with `config.customerSession`, `request.customer` is
 * the session of the shop in the path that `Authorization: Bearer <token>` opens, or null (no
 * token, or one that opens nothing: unknown, expired, signed out, another shop's). Routes decide
 * what a missing session means: the customer area refuses it (signedInCustomer), checkout only
 * for the balance gateway. It runs after validation, so `shopId` is the resolved number.
 */
export async function identifyCustomer(request: FastifyRequest): Promise<void> {
  if (!request.routeOptions.config.customerSession) return;
  const token = sessionTokenOf(request.headers.authorization);
  const shopId = (request.params as { shopId?: unknown } | undefined)?.shopId;
  request.customer =
    token !== undefined && typeof shopId === 'number' ? await findSession(request.server.ctx, shopId, token) : null;
}

/** The request's customer session, or 401: a customer-area call needs one. */
export function signedInCustomer(request: FastifyRequest): CustomerSession {
  if (request.customer) return request.customer;
  throw new AppError(401, 'unauthorized', 'Sign in to the customer area first: this needs a customer session.', [
    'authorization: needs "Bearer <token>" with a live customer session of this shop',
  ]);
}

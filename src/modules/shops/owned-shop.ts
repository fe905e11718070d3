import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../http/errors.js';
import { findShopOfAccount } from './repository.js';

/**
 * preHandler hook of the owner scope: resolves `{shopId}` to a shop of the caller's account.
 * A shop of another account is a 404, exactly like one that does not exist.
 */
export async function loadOwnedShop(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const shopId = (request.params as { shopId?: number } | undefined)?.shopId;
  if (shopId === undefined || !request.principal) return;
  const shop = await findShopOfAccount(request.server.ctx.db, request.principal.accountId, shopId);
  if (!shop) throw new NotFoundError('Shop');
  request.shop = shop;
}

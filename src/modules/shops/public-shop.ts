import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { Id } from '../../schemas/common.js';
import { findShopBySubdomain } from './repository.js';
import { SUBDOMAIN, SUBDOMAIN_PATTERN } from './subdomains.js';

/**
 * `{shopId}` of the public API: the shop's numeric id or its subdomain, so a storefront can be
 * addressed by the name its buyers see. `resolvePublicShopId` turns a subdomain into the id before
 * anything else reads the parameter, so handlers, the page cache and the rate limits only ever see
 * the number.
 */
export const PublicShopId = Type.Unsafe<number>({
  anyOf: [Id, Type.String({ pattern: SUBDOMAIN_PATTERN, description: "The shop's subdomain." })],
  description:
    'The shop: its positive integer id, or its subdomain (3–32 lower-case letters, digits and inner hyphens). Digits alone are ' +
    'read as an id (a subdomain made only of digits is reached by its shop id). An unknown id or subdomain is a 404.',
});
export const PublicShopParams = Type.Object({ shopId: PublicShopId });

const MAX_ID = 2147483647;

/**
 * onRequest hook of the public scope, registered before the routes' own hooks (the page cache
 * reads `shopId` as a number): a numeric `shopId` becomes a number, a subdomain the id of its
 * shop (one read of the unique subdomain index; unknown: 404), anything else is a 400.
 * Callback-style: an id, the common case, costs no promise on every public request.
 */
export function resolvePublicShopId(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const params = request.params as { shopId?: unknown } | undefined;
  const raw = params?.shopId;
  if (typeof raw !== 'string') done();
  else if (/^\d+$/.test(raw)) {
    const id = Number(raw);
    if (id < 1 || id > MAX_ID)
      done(ValidationError.field('shopId', `must be an id from 1 to ${MAX_ID} or a subdomain`));
    else {
      params!.shopId = id;
      done();
    }
  } else if (!SUBDOMAIN.test(raw))
    done(ValidationError.field('shopId', 'must be a positive integer id or a subdomain'));
  else
    findShopBySubdomain(request.server.ctx.db, raw).then((shop) => {
      if (!shop) done(new NotFoundError('Shop'));
      else {
        params!.shopId = shop.id;
        done();
      }
    }, done);
}

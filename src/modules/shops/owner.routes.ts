import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentAccountId } from '../../http/auth.js';
import { IdempotencyHeaders, idempotent } from '../../http/idempotency.js';
import { ok, ownerResponses } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Shops and settings'];

export const shopOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  // A retry whose first request made the shop but died before answering gets that shop.
  const shopMade = idempotent(async (request, shopId) =>
    ok(service.toShop(app.ctx, await service.getOwnShop(ctx, currentAccountId(request), Number(shopId)))),
  );
  app.get('/shops', {
    schema: {
      tags,
      summary: "List the account's shops (not paginated)",
      description:
        'Newest first. Each item is a shop and carries the same shop again under `shop`, so the original SDKs, ' +
        'which read `shops[i].shop`, work unchanged.',
      response: ownerResponses(Type.Array(schema.ShopListItem)),
    },
    handler: async (request) =>
      ok(
        (await service.listShops(ctx, currentAccountId(request))).map((row) => {
          const shop = service.toShop(app.ctx, row);
          return { ...shop, shop };
        }),
      ),
  });

  app.post('/shops', {
    schema: {
      tags,
      summary: 'Create a shop',
      description: 'The new shop gets a unique subdomain derived from its name, currency USD and UTC offset 0.',
      headers: IdempotencyHeaders,
      body: schema.CreateShopBody,
      response: ownerResponses(schema.Shop, [409]),
    },
    ...shopMade,
    handler: async (request) =>
      ok(service.toShop(app.ctx, await service.createShop(ctx, currentAccountId(request), request.body))),
  });
};

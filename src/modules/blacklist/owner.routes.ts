import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { Deleted, ok, ownerResponses, Page, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Blacklist'];

const rules =
  'Checkout refuses a buyer whose e-mail (without regard to case), IP (an equal address, or one inside a CIDR range; IPv4-mapped IPv6 counts as IPv4) ' +
  'or country matches an item. `data` is validated and normalised per `type` (400 naming `data`); the same type and data twice in a shop is a 409.';

export const blacklistOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/blacklist', {
    schema: {
      tags,
      summary: 'List blocked items',
      description: 'Newest first; `searchString` matches data and note, `type` keeps one kind.',
      params: ShopParams,
      querystring: schema.BlacklistQuery,
      response: ownerResponses(Page(schema.BlockedItem)),
    },
    handler: async (request) => ok(await service.listBlockedItems(ctx, currentShop(request), request.query)),
  });

  app.post('/:shopId/blacklist', {
    schema: {
      tags,
      summary: 'Block an e-mail, IP or country',
      description: rules,
      params: ShopParams,
      body: schema.BlockedItemInput,
      response: ownerResponses(schema.BlockedItem, [409]),
    },
    handler: async (request) => ok(await service.createBlockedItem(ctx, currentShop(request), request.body)),
  });

  app.get('/:shopId/blacklist/:blockedItemId', {
    schema: {
      tags,
      summary: 'Get one blocked item',
      params: schema.BlockedItemParams,
      response: ownerResponses(schema.BlockedItem),
    },
    handler: async (request) =>
      ok(await service.getBlockedItem(ctx, currentShop(request), request.params.blockedItemId)),
  });

  app.put('/:shopId/blacklist/:blockedItemId', {
    schema: {
      tags,
      summary: 'Replace a blocked item',
      description: `Full update: \`type\` and \`data\` are replaced, an omitted \`note\` clears it. ${rules}`,
      params: schema.BlockedItemParams,
      body: schema.BlockedItemInput,
      response: ownerResponses(schema.BlockedItem, [409]),
    },
    handler: async (request) =>
      ok(await service.updateBlockedItem(ctx, currentShop(request), request.params.blockedItemId, request.body)),
  });

  app.delete('/:shopId/blacklist/:blockedItemId', {
    schema: {
      tags,
      summary: 'Unblock: delete a blocked item',
      params: schema.BlockedItemParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) =>
      ok(await service.deleteBlockedItem(ctx, currentShop(request), request.params.blockedItemId)),
  });
};

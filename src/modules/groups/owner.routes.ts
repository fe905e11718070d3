import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { receiveImage, uploadRouteSchema, uploadUrl } from '../../http/uploads.js';
import { Deleted, ok, ownerResponses, Page, PageQuery, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Groups'];

const writeDescription =
  'Every write keeps the listings in step: the group has one listing, and products in any group lose their own. `productIds` keeps its order. A `path` another product or group of the shop has is a 409.';

export const groupOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/groups', {
    schema: {
      tags,
      summary: 'List groups',
      description: 'Newest first; `searchString` matches the title.',
      params: ShopParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.Group)),
    },
    handler: async (request) => ok(await service.listGroups(ctx, currentShop(request), request.query)),
  });

  app.post('/:shopId/groups', {
    schema: {
      tags,
      summary: 'Create a group',
      description: writeDescription,
      params: ShopParams,
      body: schema.GroupInput,
      response: ownerResponses(schema.Group, [409]),
    },
    handler: async (request) => ok(await service.createGroup(ctx, currentShop(request), request.body)),
  });

  app.get('/:shopId/groups/:groupId', {
    schema: { tags, summary: 'Get one group', params: schema.GroupParams, response: ownerResponses(schema.Group) },
    handler: async (request) => ok(await service.getGroup(ctx, currentShop(request), request.params.groupId)),
  });

  app.put('/:shopId/groups/:groupId', {
    schema: {
      tags,
      summary: 'Replace a group',
      description: `Full update: omitted optional fields take their defaults, except an omitted \`path\`, which keeps the current one. ${writeDescription}`,
      params: schema.GroupParams,
      body: schema.GroupInput,
      response: ownerResponses(schema.Group, [409]),
    },
    handler: async (request) =>
      ok(await service.updateGroup(ctx, currentShop(request), request.params.groupId, request.body)),
  });

  app.delete('/:shopId/groups/:groupId', {
    schema: {
      tags,
      summary: 'Delete a group',
      description:
        'Removes the group, its listing (and that listing from categories) and its thumbnail; its products keep existing and get their own listings back.',
      params: schema.GroupParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) =>
      ok(await service.deleteGroup(ctx, app.storage, currentShop(request), request.params.groupId)),
  });

  app.post('/:shopId/groups/:groupId/thumbnail', {
    schema: { tags, summary: 'Upload the group thumbnail', params: schema.GroupParams, ...uploadRouteSchema() },
    handler: async (request) => {
      const name = await service.setGroupThumbnail(ctx, app.storage, currentShop(request), request.params.groupId, () =>
        receiveImage(request),
      );
      return ok({ url: uploadUrl(name) });
    },
  });
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { Deleted, ok, ownerResponses, Page, PageQuery, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Categories'];

export const categoryOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/categories', {
    schema: {
      tags,
      summary: 'List categories',
      description: 'Newest first; `searchString` matches the name.',
      params: ShopParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.Category)),
    },
    handler: async (request) => ok(await service.listCategories(ctx, currentShop(request), request.query)),
  });

  app.post('/:shopId/categories', {
    schema: {
      tags,
      summary: 'Create a category',
      params: ShopParams,
      body: schema.CategoryInput,
      response: ownerResponses(schema.Category),
    },
    handler: async (request) => ok(await service.createCategory(ctx, currentShop(request), request.body)),
  });

  app.get('/:shopId/categories/:categoryId', {
    schema: {
      tags,
      summary: 'Get one category',
      params: schema.CategoryParams,
      response: ownerResponses(schema.Category),
    },
    handler: async (request) => ok(await service.getCategory(ctx, currentShop(request), request.params.categoryId)),
  });

  app.put('/:shopId/categories/:categoryId', {
    schema: {
      tags,
      summary: 'Replace a category',
      description: 'Full update: `name` and `listingIds` are replaced; an omitted `listingIds` empties the category.',
      params: schema.CategoryParams,
      body: schema.CategoryInput,
      response: ownerResponses(schema.Category),
    },
    handler: async (request) =>
      ok(await service.updateCategory(ctx, currentShop(request), request.params.categoryId, request.body)),
  });

  app.delete('/:shopId/categories/:categoryId', {
    schema: {
      tags,
      summary: 'Delete a category (its listings stay)',
      params: schema.CategoryParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) => ok(await service.deleteCategory(ctx, currentShop(request), request.params.categoryId)),
  });
};

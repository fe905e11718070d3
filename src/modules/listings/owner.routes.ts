import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { ok, ownerResponses, Page, PageQuery, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Listings'];

export const listingOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/listings', {
    schema: {
      tags,
      summary: 'List the storefront listings',
      description:
        'What the storefront shows, in order: one listing per live product that is in no group and one per group, ' +
        'created and removed with them (new ones go to the end). Ordered by `position`, then id; `searchString` ' +
        'matches the product or group title. Each item carries `product` or `group` (the other is null).',
      params: ShopParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.Listing)),
    },
    handler: async (request) => ok(await service.listListings(ctx, currentShop(request), request.query)),
  });

  app.put('/:shopId/listings/position', {
    schema: {
      tags,
      summary: 'Reorder listings',
      description:
        'Sets the `position` of 1–1000 listings; the others keep theirs. All or nothing: a repeated `listingId` is a 400, ' +
        'one that is not a listing of this shop a 404, and neither changes anything. Answers every listing of the shop in ' +
        'the new order (not paged).',
      params: ShopParams,
      body: schema.PositionsBody,
      response: ownerResponses(Type.Array(schema.Listing)),
    },
    handler: async (request) => ok(await service.setListingPositions(ctx, currentShop(request), request.body)),
  });
};

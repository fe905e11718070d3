import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { Deleted, ok, ownerResponses, Page, PageQuery, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Coupons'];

const rules =
  'The code (`name`) is unique per shop without regard to case (409). A percentage discount is more than 0 and at most 100 with at most 2 decimals; ' +
  'a fixed one (`isFixed`) is an amount in the shop currency with at most its minor-unit digits, and never takes more than the eligible subtotal. ' +
  '`endDate` may not be before `startDate`; `restrictToProducts` must name products of this shop (400 naming the entry).';

export const couponOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/coupons', {
    schema: {
      tags,
      summary: 'List coupons',
      description: 'Newest first; `searchString` matches the code.',
      params: ShopParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.Coupon)),
    },
    handler: async (request) => ok(await service.listCoupons(ctx, currentShop(request), request.query)),
  });

  app.post('/:shopId/coupons', {
    schema: {
      tags,
      summary: 'Create a coupon',
      description: rules,
      params: ShopParams,
      body: schema.CouponInput,
      response: ownerResponses(schema.Coupon, [409]),
    },
    handler: async (request) => ok(await service.createCoupon(ctx, currentShop(request), request.body)),
  });

  app.get('/:shopId/coupons/:couponId', {
    schema: { tags, summary: 'Get one coupon', params: schema.CouponParams, response: ownerResponses(schema.Coupon) },
    handler: async (request) => ok(await service.getCoupon(ctx, currentShop(request), request.params.couponId)),
  });

  app.put('/:shopId/coupons/:couponId', {
    schema: {
      tags,
      summary: 'Replace a coupon',
      description: `Full update: omitted optional fields go back to their defaults; \`uses\` is kept, and a \`maxUses\` below it is a 409. ${rules}`,
      params: schema.CouponParams,
      body: schema.CouponInput,
      response: ownerResponses(schema.Coupon, [409]),
    },
    handler: async (request) =>
      ok(await service.updateCoupon(ctx, currentShop(request), request.params.couponId, request.body)),
  });

  app.delete('/:shopId/coupons/:couponId', {
    schema: {
      tags,
      summary: 'Delete a coupon',
      description: 'Invoices that used it keep its code.',
      params: schema.CouponParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) => ok(await service.deleteCoupon(ctx, currentShop(request), request.params.couponId)),
  });
};

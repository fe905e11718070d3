import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { ok, ownerResponses, Page, PageQuery, ShopParams, Timestamp } from '../../schemas/common.js';
import { Customer, CustomerParams, StatsQuery } from '../customers/index.js';
import * as service from './service.js';

const tags = ['Affiliates'];

const Affiliate = Type.Object({
  customerId: Type.Integer(),
  email: Type.String(),
  referralCode: Type.String(),
  referredOrders: Type.Integer({ description: 'Completed orders placed with the code.' }),
  referredRevenue: Type.Number(),
  earned: Type.Number({ description: 'Commission credited to the balance.' }),
  currency: Type.String(),
  disabled: Type.Boolean(),
});

const AffiliateStats = Type.Object({
  fromDate: Timestamp,
  toDate: Timestamp,
  percentage: Type.Number({ description: 'The shop setting (settings/affiliate).' }),
  currency: Type.String(),
  activeAffiliates: Type.Integer(),
  referredOrders: Type.Integer(),
  referredRevenue: Type.Number(),
  commissionPaid: Type.Number(),
});

export const affiliateOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/affiliates/stats', {
    schema: {
      tags,
      summary: 'Referral figures over a date range (default: last 30 days)',
      params: ShopParams,
      querystring: StatsQuery,
      response: ownerResponses(AffiliateStats),
    },
    handler: async (request) => ok(await service.affiliateStats(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/affiliates', {
    schema: {
      tags,
      summary: 'Customers whose referral code brought orders',
      params: ShopParams,
      querystring: PageQuery,
      response: ownerResponses(Page(Affiliate)),
    },
    handler: async (request) => ok(await service.listAffiliates(ctx, currentShop(request), request.query)),
  });

  app.post('/:shopId/affiliates/:customerId/referral/disable', {
    schema: {
      tags,
      summary: "Stop paying commission on this customer's referrals",
      params: CustomerParams,
      response: ownerResponses(Customer),
    },
    handler: async (request) => ok(await service.disableReferral(ctx, currentShop(request), request.params.customerId)),
  });
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Dashboards'];

const rangeDescription =
  "fromDate/toDate are dates (whole days in the shop's timezone) or date-times; the default is the last 30 days ending today. " +
  'A range covers at most 366 days (400 otherwise). Figures are computed from the stored orders, in the shop currency.';

export const dashboardOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/dashboard/general', {
    schema: {
      tags,
      summary: 'Sales figures over a date range, with a day-by-day series',
      description: `Revenue and completions count by completion time; orders, pending orders and the series' orders by creation time. ${rangeDescription}`,
      params: ShopParams,
      querystring: schema.DashboardQuery,
      response: ownerResponses(schema.GeneralDashboard),
    },
    handler: async (request) => ok(await service.generalDashboard(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/dashboard/advanced', {
    schema: {
      tags,
      summary: 'Revenue by gateway, top products, conversion, returning customers, ratings and hours',
      description: rangeDescription,
      params: ShopParams,
      querystring: schema.DashboardQuery,
      response: ownerResponses(schema.AdvancedDashboard),
    },
    handler: async (request) => ok(await service.advancedDashboard(ctx, currentShop(request), request.query)),
  });
};

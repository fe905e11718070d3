import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { IdempotencyHeaders, idempotent } from '../../http/idempotency.js';
import { CursorPage, ok, ownerResponses, Page, PageQuery, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Customers'];

export const customerOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  // A retry whose first balance move committed but died before answering gets the balance as it is now.
  const balanceNow = idempotent(async (request, customerId) => {
    const shop = currentShop(request);
    const customer = await service.getCustomer(ctx, shop, Number(customerId));
    return ok({ customerId: customer.id, balance: customer.balance, currency: shop.currency });
  });

  app.get('/:shopId/customers/stats', {
    schema: {
      tags,
      summary: 'Customer figures over a date range (default: last 30 days)',
      params: ShopParams,
      querystring: schema.StatsQuery,
      response: ownerResponses(schema.CustomerStats),
    },
    handler: async (request) => ok(await service.customerStats(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/customers', {
    schema: {
      tags,
      summary: 'List customers',
      description:
        'Newest first; `orderBy` sorts by creation, e-mail or balance, either way ("-" descending, the id breaking ties). searchString matches ' +
        'the e-mail; fromDate/toDate filter on creation; both apply in every order. Keyset `cursor` paging in any order (a cursor is valid ' +
        'only in the order that returned it).',
      params: ShopParams,
      querystring: schema.CustomerListQuery,
      response: ownerResponses(CursorPage(schema.Customer)),
    },
    handler: async (request) => ok(await service.listCustomers(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/customers/:customerId', {
    schema: {
      tags,
      summary: 'Get one customer',
      params: schema.CustomerParams,
      response: ownerResponses(schema.Customer),
    },
    handler: async (request) => ok(await service.getCustomer(ctx, currentShop(request), request.params.customerId)),
  });

  app.get('/:shopId/customers/:customerId/ips', {
    schema: {
      tags,
      summary: 'IP addresses the customer bought from',
      params: schema.CustomerParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.CustomerIp)),
    },
    handler: async (request) =>
      ok(await service.listCustomerIps(ctx, currentShop(request), request.params.customerId, request.query)),
  });

  for (const [path, direction] of [
    ['/:shopId/customers/:customerId/balance/add', 'add'],
    ['/:shopId/customers/:customerId/balance/remove', 'remove'],
  ] as const) {
    app.post(path, {
      schema: {
        tags,
        summary: direction === 'add' ? 'Credit the balance' : 'Debit the balance',
        description:
          'A ledger entry; answers the new balance. ' +
          (direction === 'remove' ? 'A debit larger than the balance is a 422 and changes nothing. ' : '') +
          'Concurrent calls never lose an update. Honours Idempotency-Key.',
        params: schema.CustomerParams,
        headers: IdempotencyHeaders,
        body: schema.BalanceBody,
        response: ownerResponses(schema.BalanceResult, [409, 422]),
      },
      ...balanceNow,
      handler: async (request) =>
        ok(await service.moveBalance(ctx, currentShop(request), request.params.customerId, direction, request.body)),
    });
  }
};

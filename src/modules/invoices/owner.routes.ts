import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { IdempotencyHeaders, idempotent } from '../../http/idempotency.js';
import { CursorPage, ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import * as service from './owner.service.js';
import * as schema from './schema.js';

const tags = ['Invoices'];

export const invoiceOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;
  const delivery = { timeoutMs: app.config.invoices.dynamicTimeoutMs, allowPrivate: app.config.webhooks.allowPrivate };

  app.get('/:shopId/invoices', {
    schema: {
      tags,
      summary: 'List invoices',
      description:
        'Newest first. Unpaid invoices past their lifetime are expired before the read (stock returned), so items, the status filter and ' +
        'totalCount show the true status whether or not the expiry worker has run. Filters: status, gateway, fromDate/toDate on creation (a bare date is the whole day in the shop timezone), ' +
        'searchString (invoice id or customer e-mail), customerId, productId. Keyset `cursor` paging. totalCount is exact: with the status, ' +
        'gateway and date filters alone it is read from per-day counts kept by every write (the partial first and last days of date-time ' +
        'bounds counted directly), so it costs the same over a million invoices; a search, customerId or productId counts the matching invoices.',
      params: ShopParams,
      querystring: schema.InvoiceListQuery,
      response: ownerResponses(CursorPage(schema.OwnerInvoice)),
    },
    handler: async (request) => ok(await service.listInvoices(db, currentShop(request), request.query)),
  });

  app.get('/:shopId/invoices/:invoiceId', {
    schema: {
      tags,
      summary: 'Get one invoice with its deliverables',
      params: schema.InvoiceParams,
      response: ownerResponses(schema.OwnerInvoice),
    },
    handler: async (request) => ok(await service.getInvoice(db, currentShop(request), request.params.invoiceId)),
  });

  app.post('/:shopId/invoices/:invoiceId/process', {
    schema: {
      tags,
      summary: 'Mark a pending invoice paid: complete and deliver it',
      description:
        'Any status but pending is a 409. A failed dynamic delivery is a 422 recorded on the invoice; processing again retries. Honours Idempotency-Key.',
      params: schema.InvoiceParams,
      headers: IdempotencyHeaders,
      response: ownerResponses(schema.OwnerInvoice, [409, 422]),
    },
    ...idempotent,
    handler: async (request) =>
      ok(await service.processInvoice(db, currentShop(request), request.params.invoiceId, delivery)),
  });

  app.post('/:shopId/invoices/:invoiceId/replacement', {
    schema: {
      tags,
      summary: 'Deliver fresh items for a part of a completed invoice',
      description:
        'quantity is 1 … the part quantity; out of stock is a 422; not completed is a 409. Honours Idempotency-Key.',
      params: schema.InvoiceParams,
      headers: IdempotencyHeaders,
      body: schema.ReplacementBody,
      response: ownerResponses(schema.OwnerInvoice, [409, 422]),
    },
    ...idempotent,
    handler: async (request) =>
      ok(await service.replaceItems(db, currentShop(request), request.params.invoiceId, request.body, delivery)),
  });

  app.post('/:shopId/invoices/:invoiceId/resend', {
    schema: {
      tags,
      summary: 'Send the delivery e-mail again',
      description: 'To `email` when given, else to the customer. Only completed invoices (409 otherwise).',
      params: schema.InvoiceParams,
      body: schema.ResendBody,
      response: ownerResponses(schema.ResendResult, [409]),
    },
    handler: async (request) =>
      ok(await service.resendDelivery(db, currentShop(request), request.params.invoiceId, request.body.email)),
  });
};

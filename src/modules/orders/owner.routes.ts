import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { IdempotencyHeaders, idempotent } from '../../http/idempotency.js';
import { CursorPage, ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import { cancelInvoice } from './cancel.service.js';
import * as service from './owner.service.js';
import * as schema from './schema.js';

const tags = ['Invoices'];

export const invoiceOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const options = app.orders;
  // A retry whose first request did its work but died before answering gets the invoice as it is now.
  const invoiceNow = idempotent(async (request) =>
    ok(await service.getInvoice(ctx, currentShop(request), (request.params as { invoiceId: string }).invoiceId)),
  );

  app.get('/:shopId/invoices', {
    schema: {
      tags,
      summary: 'List invoices',
      description:
        'Newest first; `orderBy` sorts by creation or total, either way ("-" descending, the invoice id breaking ties), every filter and the ' +
        'search applying alike. Unpaid invoices past their lifetime are expired before the read (stock returned), so items, the status filter and ' +
        'totalCount show the true status whether or not the expiry worker has run. Filters: status, gateway, fromDate/toDate on creation (a bare date is the whole day in the shop timezone), ' +
        'searchString (invoice id, customer e-mail, or the payment reference a buyer quoted, e.g. `k7q2-m9xd`), customerId, productId. Keyset `cursor` paging in any order (a cursor is valid only in the order that returned it). totalCount is exact: with the status, ' +
        'gateway and date filters alone it is read from per-day counts kept by every write (the partial first and last days of date-time ' +
        'bounds counted directly), so it costs the same over a million invoices; a search, customerId or productId counts the matching invoices.',
      params: ShopParams,
      querystring: schema.InvoiceListQuery,
      response: ownerResponses(CursorPage(schema.OwnerInvoice)),
    },
    handler: async (request) => ok(await service.listInvoices(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/invoices/:invoiceId', {
    schema: {
      tags,
      summary: 'Get one invoice with its deliverables',
      params: schema.InvoiceParams,
      response: ownerResponses(schema.OwnerInvoice),
    },
    handler: async (request) => ok(await service.getInvoice(ctx, currentShop(request), request.params.invoiceId)),
  });

  app.post('/:shopId/invoices/:invoiceId/process', {
    schema: {
      tags,
      summary: 'Mark a pending invoice paid: complete and deliver it',
      description:
        'Any status but pending is a 409. A failed dynamic delivery is a 422 recorded on the invoice; processing again retries. ' +
        "The buyer is mailed the goods (one item a line), the total, the invoice page link and the products' customer notes. " +
        'For a manual method (tip jar, wallet e-mail, mobile cash, wallet-ff) this is how the owner confirms the money arrived: ' +
        '`paymentReference` (optional; the body may be omitted) keeps how it arrived on the invoice. Honours Idempotency-Key.',
      params: schema.InvoiceParams,
      headers: IdempotencyHeaders,
      body: Type.Optional(schema.ProcessBody),
      response: ownerResponses(schema.OwnerInvoice, [409, 422]),
    },
    ...invoiceNow,
    handler: async (request) =>
      ok(
        await service.processInvoice(
          ctx,
          currentShop(request),
          request.params.invoiceId,
          options,
          request.body?.paymentReference,
        ),
      ),
  });

  app.post('/:shopId/invoices/:invoiceId/cancel', {
    schema: {
      tags,
      summary: 'Cancel a pending invoice',
      description:
        'For an order that will not be paid: the invoice becomes `cancelled` and, in the same transaction, its reserved serials and ' +
        'counted stock go back on sale, the coupon use it took is returned and an `invoice.cancelled` event is written. Only a ' +
        'pending invoice can be cancelled: any other status (completed, expired, cancelled) is a 409, and so is a cancel that ' +
        'meets a payment, an expiry or another cancel of the same invoice — exactly one of them wins. A pending invoice past its ' +
        'lifetime is expired as it is read (409). Answers the invoice. The buyer can cancel too ' +
        '(`POST /v2/public/invoices/{invoiceId}/cancel`). Honours Idempotency-Key.',
      params: schema.InvoiceParams,
      headers: IdempotencyHeaders,
      response: ownerResponses(schema.OwnerInvoice, [409]),
    },
    ...invoiceNow,
    handler: async (request) => {
      const shop = currentShop(request);
      await cancelInvoice(ctx, shop.id, request.params.invoiceId, options.payments);
      return ok(await service.getInvoice(ctx, shop, request.params.invoiceId));
    },
  });

  app.post('/:shopId/invoices/:invoiceId/replacement', {
    schema: {
      tags,
      summary: 'Deliver fresh items for a part of a completed invoice',
      description:
        'quantity is 1 … the part quantity; out of stock is a 422; not completed is a 409. The buyer is mailed that this is a replacement ' +
        'for the order, with the replacement items and the invoice page link, and no total (nothing is charged). Honours Idempotency-Key.',
      params: schema.InvoiceParams,
      headers: IdempotencyHeaders,
      body: schema.ReplacementBody,
      response: ownerResponses(schema.OwnerInvoice, [409, 422]),
    },
    ...invoiceNow,
    handler: async (request) =>
      ok(await service.replaceItems(ctx, currentShop(request), request.params.invoiceId, request.body, options)),
  });

  app.post('/:shopId/invoices/:invoiceId/resend', {
    schema: {
      tags,
      summary: 'Send the delivery e-mail again',
      description:
        'The delivery mail of the completion again (goods, total, invoice page link), to `email` when given, else to the customer. ' +
        'Only completed invoices (409 otherwise).',
      params: schema.InvoiceParams,
      body: schema.ResendBody,
      response: ownerResponses(schema.ResendResult, [409]),
    },
    handler: async (request) =>
      ok(await service.resendDelivery(ctx, currentShop(request), request.params.invoiceId, request.body.email)),
  });
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../../http/errors.js';
import { IdempotencyHeaders, idempotent } from '../../http/idempotency.js';
import { ok, publicResponses, ShopParams } from '../../schemas/common.js';
import { type Buyer, checkout } from './checkout.service.js';
import { getPublicInvoice } from './owner.service.js';
import * as schema from './schema.js';

const tags = ['Checkout'];

function buyerOf(request: FastifyRequest): Buyer {
  const country = request.headers[request.server.config.countryHeader];
  const userAgent = request.headers['user-agent'];
  return {
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null,
    country: typeof country === 'string' && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null,
  };
}

export const invoicePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.post('/shops/:shopId/invoices', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Check out: create a pending invoice with payment instructions',
      description:
        'Checks in order: shop not on hold, products purchasable, quantities, custom fields, gateway, blacklist, coupon, stock; ' +
        "a gateway whose blockVpn rule is on (the shop's for the gateway, or the variant's) refuses a buyer whose IP is in the server's " +
        'VPN ranges with a 422 naming the gateway; ' +
        'each failure is a 400 or 422 naming the part. Stock is reserved for the shop invoice lifetime. The balance gateway ' +
        'completes at once when the balance covers the total (else 422, nothing kept); when that completion fails (a dynamic ' +
        'delivery that fails is a 422 saying the order was not placed) the invoice is cancelled in the same request, stock and coupon ' +
        'use returned and nothing charged. A password-protected shop needs `key` ' +
        '(403 shop_locked). Honours Idempotency-Key.',
      params: ShopParams,
      headers: IdempotencyHeaders,
      body: schema.CheckoutBody,
      response: publicResponses(schema.PublicInvoice, [403, 409, 422]),
    },
    ...idempotent,
    handler: async (request) => {
      const invoiceId = await checkout(
        db,
        request.params.shopId,
        request.body,
        buyerOf(request),
        {
          timeoutMs: app.config.invoices.dynamicTimeoutMs,
          allowPrivate: app.config.webhooks.allowPrivate,
        },
        app.vpnRanges,
      );
      return ok((await getPublicInvoice(db, invoiceId))!);
    },
  });

  app.get('/invoices/:invoiceId', {
    config: { public: true },
    schema: {
      tags,
      summary: "The customer's view of an invoice",
      description:
        'Status, parts and totals; deliverables once completed. Never the e-mail, IP or payment credentials.',
      params: schema.PublicInvoiceParams,
      response: publicResponses(schema.PublicInvoice),
    },
    handler: async (request) => {
      const invoice = await getPublicInvoice(db, request.params.invoiceId);
      if (!invoice) throw new NotFoundError('Invoice');
      return ok(invoice);
    },
  });
};

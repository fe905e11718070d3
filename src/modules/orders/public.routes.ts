import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../../http/errors.js';
import { IdempotencyHeaders, idempotent } from '../../http/idempotency.js';
import { proxyHeader } from '../../http/proxy-trust.js';
import { acceptedLocale } from '../../i18n/negotiate.js';
import { ok, publicResponses } from '../../schemas/common.js';
import { AltchaHeaders } from '../challenge/index.js';
import { PublicShopParams } from '../shops/index.js';
import { cancelPublicInvoice } from './cancel.service.js';
import { assertBalancePayer, type Buyer, checkout } from './checkout.service.js';
import { recordInvoiceView } from './invoice-disputes.js';
import { getPublicInvoice, placedInvoiceView } from './owner.service.js';
import * as schema from './schema.js';

const tags = ['Checkout'];

/** Who is buying, as this request shows them (also used by the web storefront's checkout form). */
export function buyerOf(request: FastifyRequest): Buyer {
  // Believed only from a proxy TRUST_PROXY names: a client could otherwise choose its country.
  const country = proxyHeader(request, request.server.config.countryHeader);
  const userAgent = request.headers['user-agent'];
  return {
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null,
    country: typeof country === 'string' && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null,
    // Set on routes with `config.customerSession` (the public scope's identifyCustomer hook).
    signedInAs: request.customer?.email ?? null,
    locale: acceptedLocale(request.headers['accept-language']),
  };
}

export const invoicePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const options = app.orders;
  // A retry whose first checkout placed the order but died before answering gets that invoice as it is now.
  const guard = idempotent(async (_request, invoiceId) => ok((await getPublicInvoice(ctx, app.secrets, invoiceId))!));

  app.post('/shops/:shopId/invoices', {
    config: { public: true, customerSession: true },
    schema: {
      tags,
      summary: 'Check out: create a pending invoice with payment instructions',
      description:
        'Checks in order: shop not on hold, products purchasable, quantities, custom fields, gateway, blacklist, coupon, the ' +
        "client's limits (below), stock; " +
        "a gateway whose blockVpn rule is on (the shop's for the gateway, or the variant's) refuses a buyer whose IP is in the server's " +
        'VPN ranges with a 422 naming the gateway; ' +
        'each failure is a 400 or 422 naming the part. Stock is reserved for the shop invoice lifetime, a card or crypto ' +
        "order's (a hosted gateway's) for the shop's `holdMinutesHosted` (`settings/protection`, default 15) when that is shorter: " +
        'its payment page closes then (`payment.closesAt`), and the order expires 10 minutes later, the time a payment made at ' +
        'the last moment takes to be reported; a provider page that would stay open longer (Stripe keeps one 30 minutes at ' +
        'least) is closed at the provider once the order has expired. ' +
        '**Limits per client** (`settings/protection`; a client is the IPv4 address or IPv6 /64 behind the request and, over ' +
        'all addresses, the e-mail address `customerEmail` with its customer; an order counts for a client when either matches): ' +
        '`hostedCheckoutsPerHour` card or crypto checkouts started in the last hour, whatever became of them (default 10; ' +
        'against card testing): past it **429** with `Retry-After`, the seconds until the oldest of them is an hour old; ' +
        '`pendingPerClient` unpaid orders in the shop (default 3): past it **429** with `Retry-After`, the seconds until the ' +
        "client's earliest pending order expires; `unitsPerClient` units of one product in the client's unpaid orders, this " +
        'order included (default 10): past it **422** naming the part (`parts[i].quantity`) and the limit, since waiting alone ' +
        'does not make a too large order fit. A balance order holds nothing and is not counted against these. Nothing is kept ' +
        'from a refusal, and a 429 is not kept under an Idempotency-Key: the retry after `Retry-After` acts. The balance gateway ' +
        'completes at once when the balance covers the total (else 422, nothing kept); when that completion fails (a dynamic ' +
        'delivery that fails is a 422 saying the order was not placed) the invoice is cancelled in the same request, stock and coupon ' +
        'use returned and nothing charged. The buyer is mailed the invoice page link, the payment instructions, the items, the total ' +
        'and the expiry (in the shop timezone); a balance order gets the delivery mail instead. A password-protected shop needs `key` ' +
        '(403 shop_locked). Honours Idempotency-Key. ' +
        '**Paying from the balance needs a customer session** (see *Customer area*): `Authorization: Bearer <token>` of a ' +
        'session of this shop whose e-mail is `customerEmail`. Without one (no token, or one that is unknown, expired, signed ' +
        "out or another shop's) it is a 401, with another address's session a 403, before any other check (after validation): " +
        'nothing is created or reserved, the balance is not revealed, and the refusal is not kept under an Idempotency-Key. ' +
        'Other gateways need no session and ignore one. ' +
        '**A proof-of-work challenge** may be asked first (after the balance payer and the Idempotency-Key): when the ' +
        "shop's `settings/protection` `challenge` asks this client for one, a checkout without a solution in `X-Altcha` is " +
        'a 428 `challenge_required` that creates nothing and is not kept under the Idempotency-Key; see ' +
        '`GET /v2/public/shops/{shopId}/challenge`.',
      security: [{}, { customerSession: [] }],
      params: PublicShopParams,
      headers: Type.Composite([IdempotencyHeaders, AltchaHeaders]),
      body: schema.CheckoutBody,
      response: publicResponses(schema.PublicInvoice, [401, 403, 409, 422, 428]),
    },
    // The balance payer is checked before the Idempotency-Key is claimed: a refusal is not replayed once signed in.
    preHandler: [async (request) => assertBalancePayer(request.body, request.customer?.email), ...guard.preHandler],
    onSend: guard.onSend,
    handler: async (request) => {
      await app.challenges.admit(request.params.shopId, request.ip, request.headers['x-altcha']);
      const placed = await checkout(ctx, request.params.shopId, request.body, buyerOf(request), options, app.vpnRanges);
      // A manual gateway's order is answered as placed; one that went on (completed, or at a provider) is read again.
      if (placed.order) return ok(placedInvoiceView(placed.order, ctx.config));
      return ok((await getPublicInvoice(ctx, app.secrets, placed.invoiceId))!);
    },
  });

  app.get('/invoices/:invoiceId', {
    config: { public: true },
    schema: {
      tags,
      summary: "The customer's view of an invoice",
      description:
        'Status, parts and totals; deliverables once completed. Never the e-mail, IP or payment credentials. ' +
        'Each view is kept (time, IP, user agent) as evidence should the payment be disputed.',
      params: schema.PublicInvoiceParams,
      response: publicResponses(schema.PublicInvoice),
    },
    handler: async (request) => {
      const invoice = await getPublicInvoice(ctx, app.secrets, request.params.invoiceId);
      if (!invoice) throw new NotFoundError('Invoice');
      // Every view is evidence that the buyer saw what was delivered, should a dispute come.
      await recordInvoiceView(
        ctx.db,
        invoice.shopId,
        invoice.id,
        { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
        ctx.clock.now(),
      );
      return ok(invoice);
    },
  });

  app.post('/invoices/:invoiceId/cancel', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Cancel an unpaid order (the buyer)',
      description:
        "No API key: the invoice's unguessable id is what allows it, as for its page. A pending invoice becomes `cancelled`: its " +
        'reserved stock goes back on sale and a coupon use it took is returned, in one transaction, and the shop gets an ' +
        '`invoice.cancelled` event. Any other status is a 409 (a paid, expired or already cancelled order), and so is a cancel that ' +
        "meets a payment or another cancel of the same invoice: exactly one wins. Answers the customer's view of the invoice. An " +
        'unknown id is a 404.',
      params: schema.PublicInvoiceParams,
      response: publicResponses(schema.PublicInvoice, [409]),
    },
    handler: async (request) => {
      await cancelPublicInvoice(ctx, request.params.invoiceId, options.payments);
      return ok((await getPublicInvoice(ctx, app.secrets, request.params.invoiceId))!);
    },
  });
};

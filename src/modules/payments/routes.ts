import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { IdempotencyHeaders, idempotent } from '../../http/idempotency.js';
import { ok, ownerResponses, publicResponses, StringEnum } from '../../schemas/common.js';
import { getInvoice, InvoiceParams, OwnerInvoice } from '../orders/index.js';
import { hostedProviders, PublicShopId } from '../shops/index.js';
import { applyCallback, type PaymentContext } from './payment.service.js';
import { refundInvoice } from './refund.service.js';
import { RefundBody } from './schema.js';

/** The payment code's context of a server: the key to the gateways' secrets, the providers' APIs, its log. */
export function paymentContext(app: {
  secrets: PaymentContext['secrets'];
  config: { payments: PaymentContext['endpoints'] };
  log: PaymentContext['log'];
}): PaymentContext {
  return { secrets: app.secrets, endpoints: app.config.payments, log: app.log };
}

/** The owner's refund of an invoice (`POST /self/{shopId}/invoices/{invoiceId}/refund`), among the invoices' routes. */
export const paymentOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const payments = paymentContext(app);
  const tags = ['Invoices'];
  // A retry whose first request did its work but died before answering gets the invoice as it is now.
  const invoiceNow = idempotent(async (request) =>
    ok(await getInvoice(ctx, currentShop(request), (request.params as { invoiceId: string }).invoiceId)),
  );

  app.post('/:shopId/invoices/:invoiceId/refund', {
    schema: {
      tags,
      summary: 'Refund a completed invoice, in full or in part',
      description:
        'Only a completed invoice (409 otherwise, and when it is refunded in full already). `amount` omitted: everything not ' +
        'refunded yet; more than that is a 422. How the money goes back follows the payment: a card order (`cardconnect`) paid ' +
        "on Stripe's page (`payment.confirmedBy: provider`) is refunded through Stripe; a `balance` order is credited to the " +
        "buyer's store balance; crypto, manual and hand-processed card orders are recorded, and the owner sends the money (the " +
        'crypto provider has no refund API). Stripe refusing is a 502 and nothing is refunded; Stripe not answering is a 502 ' +
        'that keeps the refund `pending`, its amount held: a refund request of the invoice 5 minutes or more later asks Stripe ' +
        'again for that refund, with the same idempotency key, and answers that, instead of making a new one (sooner, it is ' +
        'a 409 while the first request may still be asking). ' +
        'The invoice keeps its status `completed` and its goods (digital goods cannot be taken back); `refunded` and `refunds` ' +
        'show what went back. The buyer is mailed the refund (amount, how it comes back, the reason), their lifetime spend goes ' +
        'down by the amount, an `invoice.refunded` event is sent, and the ' +
        "dashboard's `refundsAndReplacements` counts it. Two refunds at once never give back more than the total. Honours " +
        'Idempotency-Key.',
      params: InvoiceParams,
      headers: IdempotencyHeaders,
      body: RefundBody,
      response: ownerResponses(OwnerInvoice, [409, 422, 502]),
    },
    ...invoiceNow,
    handler: async (request) => {
      const shop = currentShop(request);
      await refundInvoice(ctx, shop.id, request.params.invoiceId, request.body, payments);
      return ok(await getInvoice(ctx, shop, request.params.invoiceId));
    },
  });
};

/**
 * The payment providers' callbacks: `POST /v2/public/payments/{provider}/{shopId}/webhook`, the
 * URL the owner gives the provider (the admin shows it). The body is kept as the bytes that came
 * (the signature is over them), whatever its content type says.
 */
export const paymentCallbackRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const payments = paymentContext(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post('/payments/:provider/:shopId/webhook', {
    // Providers call from a few addresses, and retry: a signed callback is never refused for its rate.
    config: { public: true, rateLimit: false },
    schema: {
      tags: ['Payments'],
      summary: "A payment provider's callback",
      description:
        "For the provider, not for clients. `cardconnect` (Stripe): the `Stripe-Signature` header checked with the shop's " +
        '`webhookSecret` on the raw body; `checkout.session.completed` (paid) and `checkout.session.async_payment_succeeded` ' +
        'complete the invoice, `checkout.session.expired` expires it and `checkout.session.async_payment_failed` cancels it. ' +
        "`cryptocommerce`: `X-CC-Webhook-Signature`, the hex HMAC-SHA256 of the body with the shop's `webhookSecret`; " +
        '`charge:confirmed` and `charge:resolved` complete, `charge:failed` with nothing paid expires; an underpayment, ' +
        '`charge:pending` and `charge:delayed` hold the invoice (7 days) with a note for the owner, and so does a Stripe ' +
        'session completed unpaid (a method that settles later). A completion happens only ' +
        "for the payment started for the invoice, of the invoice's exact amount and currency (another is noted for the owner, " +
        'nothing delivered); each event id is applied once (a repeat is answered `duplicate`). A callback ' +
        "naming another shop's invoice, or an event shopd does not act on, is answered `ignored` and changes nothing. " +
        'An event arriving while the same event is being handled is a 409 (the provider retries it); a claim left by a ' +
        'server that stopped mid-way is taken over after 5 minutes. ' +
        'A bad or missing signature is a 400; a shop that has not configured the provider, a 404. Not rate limited.',
      params: Type.Object({
        provider: StringEnum(hostedProviders),
        shopId: PublicShopId,
      }),
      response: publicResponses(
        Type.Object({
          eventId: Type.String(),
          outcome: Type.String({
            description:
              'completed, already-completed, expired, cancelled, held, noted, ignored, duplicate, amount-mismatch, paid-late, delivery-failed, ' +
              'disputed (a new dispute recorded) or dispute-updated. A signed body that is not an event of the documented shape (no type, ' +
              'no `data.object`, or without the ids shopd reads) is a 400.',
          }),
        }),
        [409],
      ),
    },
    handler: async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return ok(
        await applyCallback(
          ctx,
          request.params.provider,
          request.params.shopId,
          body,
          request.headers,
          payments,
          app.orders,
        ),
      );
    },
  });
};

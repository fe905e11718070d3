import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok, publicResponses, StringEnum } from '../../schemas/common.js';
import { hostedProviders, PublicShopId } from '../shops/index.js';
import { orderOptions } from './order-options.js';
import { applyCallback } from './payment.service.js';

/**
 * The payment providers' callbacks: `POST /v2/public/payments/{provider}/{shopId}/webhook`, the
 * URL the owner gives the provider (the admin shows it). The body is kept as the bytes that came
 * (the signature is over them), whatever its content type says.
 */
export const paymentCallbackRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const options = orderOptions(app);
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
              'completed, already-completed, expired, cancelled, held, noted, ignored, duplicate, amount-mismatch, paid-late or delivery-failed.',
          }),
        }),
        [409],
      ),
    },
    handler: async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return ok(
        await applyCallback(ctx, request.params.provider, request.params.shopId, body, request.headers, options),
      );
    },
  });
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { ok, ownerResponses, Page, PageQuery, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import { type DisputeContext, getDispute, listDisputes, submitEvidence } from './service.js';

const tags = ['Disputes'];

const about =
  "A dispute is recorded when the payment provider reports one (Stripe's `charge.dispute.created`, found by the order's " +
  'PaymentIntent); later events update its status. The invoice keeps its status; its licences and download links end as on a full refund, ' +
  "an `invoice.disputed` webhook event is sent, and with the protection setting `disputeBlacklist` the buyer's e-mail and IP are blacklisted.";

export const disputeOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const disputes: DisputeContext = { secrets: app.secrets, endpoints: app.config.payments, log: app.log };

  app.get('/:shopId/disputes', {
    schema: {
      tags,
      summary: 'List payment disputes',
      description: `Newest first. ${about}`,
      params: ShopParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.Dispute)),
    },
    handler: async (request) => ok(await listDisputes(ctx, currentShop(request).id, request.query)),
  });

  app.get('/:shopId/disputes/:disputeId', {
    schema: {
      tags,
      summary: 'Get a dispute with its evidence',
      description:
        'The evidence is assembled when asked: the buyer and the purchase IP, what was delivered and when (by name, never keys), ' +
        'every view of the invoice page, downloads and licence activations with IP and user agent where recorded, and the ' +
        'terms of service the order was placed under (`termsAtCheckout`). ' +
        '`submittedEvidence` is what was sent to the provider, once submitted.',
      params: schema.DisputeParams,
      response: ownerResponses(schema.DisputeDetail),
    },
    handler: async (request) => ok(await getDispute(ctx, currentShop(request).id, request.params.disputeId)),
  });

  app.post('/:shopId/disputes/:disputeId/submit', {
    schema: {
      tags,
      summary: "Submit a dispute's evidence to the provider",
      description:
        "Sends the evidence to Stripe's disputes API (`evidence` fields, `submit: true`); the dispute moves to under_review. " +
        'Done automatically when the dispute is reported if the protection setting `disputeAutoSubmit` is on. ' +
        '409 when already submitted, closed, or the gateway is no longer set up; 502 when Stripe refuses or does not answer (kept in `submitError`).',
      params: schema.DisputeParams,
      response: ownerResponses(schema.DisputeDetail, [409, 502]),
    },
    handler: async (request) =>
      ok(await submitEvidence(ctx, disputes, currentShop(request).id, request.params.disputeId)),
  });
};

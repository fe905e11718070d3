import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok, publicResponses } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Feedbacks'];

export const feedbackPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.post('/invoices/:invoiceId/feedback', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Rate a completed invoice',
      description:
        'rating 1–5 (whole stars), optional comment ≤ 2,000 characters. Only a completed invoice can be rated: pending, expired or cancelled is a 409 ' +
        '(conflict, the invoice is not in a state that allows it). One feedback per invoice: a second is a 409, also when both arrive at once. ' +
        'An unknown invoice is a 404. The answer is the public feedback, with nothing about the customer.',
      params: schema.PublicFeedbackParams,
      body: schema.FeedbackBody,
      response: publicResponses(schema.PublicFeedback, [409]),
    },
    handler: async (request) => ok(await service.postFeedback(ctx, request.params.invoiceId, request.body)),
  });
};

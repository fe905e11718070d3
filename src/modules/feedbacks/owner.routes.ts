import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { CursorPage, ok, ownerResponses, Page, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Feedbacks'];

export const feedbackOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/feedbacks', {
    schema: {
      tags,
      summary: 'List feedbacks',
      description:
        'Newest first, each with the products of its invoice and its latest appeal. `rating` keeps one rating; `searchString` matches comment, answer and invoice id. ' +
        'Keyset `cursor` paging.',
      params: ShopParams,
      querystring: schema.FeedbackListQuery,
      response: ownerResponses(CursorPage(schema.OwnerFeedback)),
    },
    handler: async (request) => ok(await service.listFeedbacks(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/feedbacks/appeals', {
    schema: {
      tags,
      summary: 'List appeals',
      description:
        "The shop's appeals against feedbacks, newest first, each with its feedbackId. `status` keeps one status; `searchString` matches the description.",
      params: ShopParams,
      querystring: schema.AppealListQuery,
      response: ownerResponses(Page(schema.AppealListItem)),
    },
    handler: async (request) => ok(await service.listAppeals(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/feedbacks/:feedbackId', {
    schema: {
      tags,
      summary: 'Get one feedback',
      params: schema.FeedbackParams,
      response: ownerResponses(schema.OwnerFeedback),
    },
    handler: async (request) => ok(await service.getFeedback(ctx, currentShop(request), request.params.feedbackId)),
  });

  app.post('/:shopId/feedbacks/:feedbackId/answer', {
    schema: {
      tags,
      summary: 'Answer a feedback publicly',
      description: 'answer 1–2,000 characters, trimmed (blank is a 400); replaces an earlier answer.',
      params: schema.FeedbackParams,
      body: schema.AnswerBody,
      response: ownerResponses(schema.OwnerFeedback),
    },
    handler: async (request) =>
      ok(await service.answerFeedback(ctx, currentShop(request), request.params.feedbackId, request.body)),
  });

  app.post('/:shopId/feedbacks/:feedbackId/appeal', {
    schema: {
      tags,
      summary: 'Appeal a feedback',
      description:
        'reason: spam, abusive, wrong_product, resolved or other; description 1–2,000 characters (trimmed). A new appeal is `open`; ' +
        'a feedback has at most one open appeal (another is a 409). The service operator reviews appeals (`shopd appeals list|accept|reject`): ' +
        'an accepted appeal hides the feedback from the storefront and from every rating figure (storefront statistics, dashboard averageRating); ' +
        'a rejected one changes nothing. A feedback already hidden cannot be appealed again (409).',
      params: schema.FeedbackParams,
      body: schema.AppealBody,
      response: ownerResponses(schema.OwnerFeedback, [409]),
    },
    handler: async (request) =>
      ok(await service.appealFeedback(ctx, currentShop(request), request.params.feedbackId, request.body)),
  });
};

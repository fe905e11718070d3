import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { Deleted, ok, ownerResponses, Page, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['FAQs'];

const rules =
  'question 1–500 and answer 1–10,000 characters, trimmed (blank is a 400). `position` (≥ 0) orders the storefront FAQ page ascending, ' +
  'id breaking ties; positions need not be unique or contiguous.';

export const faqOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/faqs', {
    schema: {
      tags,
      summary: 'List FAQs',
      description: 'In storefront order: position, then id. `searchString` matches question and answer.',
      params: ShopParams,
      querystring: schema.FaqListQuery,
      response: ownerResponses(Page(schema.Faq)),
    },
    handler: async (request) => ok(await service.listFaqs(ctx, currentShop(request), request.query)),
  });

  app.post('/:shopId/faqs', {
    schema: {
      tags,
      summary: 'Create an FAQ',
      description: `${rules} Without \`position\` the FAQ goes after the last one.`,
      params: ShopParams,
      body: schema.FaqInput,
      response: ownerResponses(schema.Faq),
    },
    handler: async (request) => ok(await service.createFaq(ctx, currentShop(request), request.body)),
  });

  app.put('/:shopId/faqs/:faqId', {
    schema: {
      tags,
      summary: 'Replace an FAQ',
      description: `Full update of question and answer. ${rules} An omitted \`position\` keeps the FAQ where it is.`,
      params: schema.FaqParams,
      body: schema.FaqInput,
      response: ownerResponses(schema.Faq),
    },
    handler: async (request) =>
      ok(await service.updateFaq(ctx, currentShop(request), request.params.faqId, request.body)),
  });

  app.delete('/:shopId/faqs/:faqId', {
    schema: { tags, summary: 'Delete an FAQ', params: schema.FaqParams, response: ownerResponses(Deleted) },
    handler: async (request) => ok(await service.deleteFaq(ctx, currentShop(request), request.params.faqId)),
  });
};

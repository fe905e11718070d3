import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { pageQuery } from './list';
import { defineResource } from './resource';

export type Faq =
  paths['/self/{shopId}/faqs']['get']['responses'][200]['content']['application/json']['data']['items'][number];

export const faqs = defineResource({
  keys: queryKeys.faqs,
  list: (shopId, query) =>
    unwrap(api.GET('/self/{shopId}/faqs', { params: { path: { shopId }, query: pageQuery(query) } })),
  create: {
    operation: 'POST /self/{shopId}/faqs',
    send: (shopId, body) => unwrap(api.POST('/self/{shopId}/faqs', { params: { path: { shopId } }, body })),
  },
  update: {
    operation: 'PUT /self/{shopId}/faqs/{faqId}',
    send: (shopId, faq: Faq, body) =>
      unwrap(api.PUT('/self/{shopId}/faqs/{faqId}', { params: { path: { shopId, faqId: faq.id } }, body })),
  },
  remove: (shopId, faq: Faq) =>
    unwrap(api.DELETE('/self/{shopId}/faqs/{faqId}', { params: { path: { shopId, faqId: faq.id } } })),
});

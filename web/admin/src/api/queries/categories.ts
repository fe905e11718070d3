import { api, unwrap } from '../client';
import type { Answer } from '../types';
import { queryKeys } from './keys';
import { defineResource } from './resource';

export type Category = Answer<'/self/{shopId}/categories/{categoryId}', 'get'>;

export const categories = defineResource({
  keys: queryKeys.categories,
  list: (shopId, query) => unwrap(api.GET('/self/{shopId}/categories', { params: { path: { shopId }, query } })),
  create: {
    operation: 'POST /self/{shopId}/categories',
    send: (shopId, body) => unwrap(api.POST('/self/{shopId}/categories', { params: { path: { shopId } }, body })),
  },
  update: {
    operation: 'PUT /self/{shopId}/categories/{categoryId}',
    send: (shopId, category: Category, body) =>
      unwrap(
        api.PUT('/self/{shopId}/categories/{categoryId}', {
          params: { path: { shopId, categoryId: category.id } },
          body,
        }),
      ),
  },
  remove: (shopId, category: Category) =>
    unwrap(
      api.DELETE('/self/{shopId}/categories/{categoryId}', { params: { path: { shopId, categoryId: category.id } } }),
    ),
});

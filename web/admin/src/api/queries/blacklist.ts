import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { pageQuery } from './list';
import { defineResource } from './resource';

export type BlockedItem =
  paths['/self/{shopId}/blacklist']['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type BlockType = BlockedItem['type'];

export const blacklist = defineResource({
  keys: queryKeys.blacklist,
  filters: ['type'],
  list: (shopId, query) =>
    unwrap(
      api.GET('/self/{shopId}/blacklist', {
        params: {
          path: { shopId },
          query: { ...pageQuery(query), ...(query.type ? { type: query.type as BlockType } : {}) },
        },
      }),
    ),
  create: {
    operation: 'POST /self/{shopId}/blacklist',
    send: (shopId, body) => unwrap(api.POST('/self/{shopId}/blacklist', { params: { path: { shopId } }, body })),
  },
  update: {
    operation: 'PUT /self/{shopId}/blacklist/{blockedItemId}',
    send: (shopId, item: BlockedItem, body) =>
      unwrap(
        api.PUT('/self/{shopId}/blacklist/{blockedItemId}', {
          params: { path: { shopId, blockedItemId: item.id } },
          body,
        }),
      ),
  },
  remove: (shopId, item: BlockedItem) =>
    unwrap(
      api.DELETE('/self/{shopId}/blacklist/{blockedItemId}', { params: { path: { shopId, blockedItemId: item.id } } }),
    ),
});

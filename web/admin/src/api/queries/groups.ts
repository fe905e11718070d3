import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { Answer, JsonBody } from '../types';
import { queryKeys } from './keys';
import { defineResource } from './resource';

export type Group = Answer<'/self/{shopId}/groups/{groupId}', 'get'>;
export type GroupBody = JsonBody<'/self/{shopId}/groups/{groupId}', 'put'>;

/** A group is a storefront listing, and categories hold listings: a write changes those too. */
const shownIn = [queryKeys.listings.all, queryKeys.categories.all] as const;

export const groups = defineResource({
  keys: queryKeys.groups,
  shownIn,
  list: (shopId, query) => unwrap(api.GET('/self/{shopId}/groups', { params: { path: { shopId }, query } })),
  create: {
    operation: 'POST /self/{shopId}/groups',
    send: (shopId, body) => unwrap(api.POST('/self/{shopId}/groups', { params: { path: { shopId } }, body })),
  },
  update: {
    operation: 'PUT /self/{shopId}/groups/{groupId}',
    send: (shopId, group: Group, body) =>
      unwrap(api.PUT('/self/{shopId}/groups/{groupId}', { params: { path: { shopId, groupId: group.id } }, body })),
  },
  remove: (shopId, group: Group) =>
    unwrap(api.DELETE('/self/{shopId}/groups/{groupId}', { params: { path: { shopId, groupId: group.id } } })),
});

/** Uploads a group's thumbnail (multipart, its `file` part); the lists that show it are read again. */
export function useGroupThumbnailUpload(shopId: number, groupId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      // The typed body is a placeholder: the serializer sends the multipart form with its `file` part.
      return unwrap(
        api.POST('/self/{shopId}/groups/{groupId}/thumbnail', {
          params: { path: { shopId, groupId } },
          body: { file: '' },
          bodySerializer: () => form,
        }),
      );
    },
    onSuccess: () =>
      Promise.all(
        [queryKeys.groups.all, ...shownIn].map((key) => queryClient.invalidateQueries({ queryKey: key(shopId) })),
      ),
  });
}

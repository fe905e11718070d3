import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { pageQuery } from './list';
import { defineResource } from './resource';

export type Announcement =
  paths['/self/{shopId}/announcements']['get']['responses'][200]['content']['application/json']['data']['items'][number];

export const announcements = defineResource({
  keys: queryKeys.announcements,
  list: (shopId, query) =>
    unwrap(api.GET('/self/{shopId}/announcements', { params: { path: { shopId }, query: pageQuery(query) } })),
  create: {
    operation: 'POST /self/{shopId}/announcements',
    send: (shopId, body) => unwrap(api.POST('/self/{shopId}/announcements', { params: { path: { shopId } }, body })),
  },
  update: {
    operation: 'PUT /self/{shopId}/announcements/{announcementId}',
    send: (shopId, announcement: Announcement, body) =>
      unwrap(
        api.PUT('/self/{shopId}/announcements/{announcementId}', {
          params: { path: { shopId, announcementId: announcement.id } },
          body,
        }),
      ),
  },
  remove: (shopId, announcement: Announcement) =>
    unwrap(
      api.DELETE('/self/{shopId}/announcements/{announcementId}', {
        params: { path: { shopId, announcementId: announcement.id } },
      }),
    ),
});

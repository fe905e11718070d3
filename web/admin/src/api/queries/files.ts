import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { Answer } from '../types';
import { queryKeys } from './keys';
import { allPages, type ListQuery, useList } from './list';

export type ShopFile = Answer<'/self/{shopId}/files', 'get'>['items'][number];

function fetchFiles(shopId: number, query: ListQuery) {
  return unwrap(
    api.GET('/self/{shopId}/files', {
      params: {
        path: { shopId },
        query: {
          pageSize: query.pageSize,
          ...(query.searchString ? { searchString: query.searchString } : {}),
          ...(query.cursor ? { cursor: query.cursor } : {}),
          ...(query.pageNumber ? { pageNumber: query.pageNumber } : {}),
        },
      },
    }),
  );
}

/** The files screen's list: newest first, searched by name, paged by cursor. */
export function useFileList(shopId: number) {
  return useList<ShopFile>(queryKeys.files.list(shopId), (query) => fetchFiles(shopId, query), { cursor: true });
}

/** Every file of the shop (100 a page), for a file variant's picker. */
export function useEveryFile(shopId: number) {
  return useQuery({
    queryKey: queryKeys.files.everyOne(shopId),
    queryFn: () => allPages((pageNumber) => fetchFiles(shopId, { pageSize: 100, pageNumber })),
  });
}

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'wouter';
import { strings } from '../../strings';

/** A page of a list endpoint, as the contract answers it. */
export interface ListPage<T> {
  items: T[];
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
  nextCursor?: string | null;
}

export interface ListQuery {
  pageNumber?: number;
  pageSize: number;
  searchString?: string;
  orderBy?: string;
  cursor?: string;
  [filter: string]: string | number | undefined;
}

/**
 * A server-side list: search, filters and sort live in the URL (`?q=…&status=…&sort=…&page=…`),
 * so a reload or a shared link shows the same rows and Back goes to the previous view. With
 * `cursor: true` the list pages by the API's `nextCursor` (keyset paging, as cheap at page
 * 10,000 as at page 1) and keeps the cursors it went through to page back; those live in the
 * screen, so leaving it and coming back starts again at the first page.
 */
export function useList<T>(
  key: readonly unknown[],
  fetchPage: (query: ListQuery) => Promise<ListPage<T>>,
  options: { filters?: readonly string[]; cursor?: boolean; pageSize?: number; defaultOrder?: string } = {},
) {
  const [params, setParams] = useSearchParams();
  const pageSize = options.pageSize ?? 25;
  const search = params.get('q') ?? '';
  const orderBy = params.get('sort') ?? options.defaultOrder;
  const pageNumber = Math.max(1, Number(params.get('page')) || 1);
  const filters: Record<string, string> = {};
  for (const name of options.filters ?? []) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  // Cursor mode: the cursors of the pages up to this one (null = the first page), for the search
  // and filters they were read with. Another search or filter starts at the first page, in the
  // same render: a cursor of another list never reaches the API.
  const filterKey = JSON.stringify([search, orderBy, filters]);
  const [paging, setPaging] = useState<{ key: string; cursors: (string | null)[] }>({
    key: filterKey,
    cursors: [null],
  });
  const cursors = paging.key === filterKey ? paging.cursors : [null];
  const setCursors = (next: (all: (string | null)[]) => (string | null)[]) =>
    setPaging((current) => ({ key: filterKey, cursors: next(current.key === filterKey ? current.cursors : [null]) }));
  const cursor = cursors[cursors.length - 1] ?? undefined;

  const query: ListQuery = { pageSize, ...filters };
  if (search) query.searchString = search;
  if (orderBy) query.orderBy = orderBy;
  if (options.cursor) {
    if (cursor) query.cursor = cursor;
  } else query.pageNumber = pageNumber;

  const result = useQuery({
    queryKey: [...key, query],
    queryFn: () => fetchPage(query),
    placeholderData: keepPreviousData,
  });

  // The list's own address: a late change (a search box's pause ending after a row was clicked,
  // while the next screen loads and this one is only hidden) must not pull the owner back here.
  const listPath = window.location.pathname;
  const update = (changes: Record<string, string | undefined>, keepPage = false) => {
    if (window.location.pathname !== listPath) return;
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [name, value] of Object.entries(changes)) {
        if (value) next.set(name, value);
        else next.delete(name);
      }
      if (!keepPage) next.delete('page');
      return next;
    });
  };

  const data = result.data;
  const hasNext = options.cursor ? Boolean(data?.nextCursor) : data ? pageNumber < data.totalPages : false;
  const hasPrev = options.cursor ? cursors.length > 1 : pageNumber > 1;
  return {
    result,
    rows: data?.items ?? [],
    /** The rows on screen are the previous page's or search's while the new ones load. */
    busy: result.isFetching && result.isPlaceholderData,
    totalCount: data?.totalCount ?? 0,
    search,
    filters,
    orderBy,
    setSearch: (value: string) => update({ q: value || undefined }),
    setFilter: (name: string, value: string | undefined) => update({ [name]: value }),
    setOrderBy: (value: string | undefined) => update({ sort: value }),
    pageLabel: options.cursor
      ? strings.common.pageOf(cursors.length, Math.max(1, data?.totalPages ?? 1))
      : strings.common.pageOf(pageNumber, Math.max(1, data?.totalPages ?? 1)),
    hasNext,
    hasPrev,
    next: () => {
      if (options.cursor) {
        if (data?.nextCursor) setCursors((all) => [...all, data.nextCursor!]);
      } else update({ page: String(pageNumber + 1) }, true);
    },
    prev: () => {
      if (options.cursor) setCursors((all) => (all.length > 1 ? all.slice(0, -1) : all));
      else update({ page: pageNumber > 2 ? String(pageNumber - 1) : undefined }, true);
    },
  };
}

export type ListState<T> = ReturnType<typeof useList<T>>;

/** The paging and search part of a list query, for an endpoint that pages by number. */
export function pageQuery(query: ListQuery): { pageSize: number; pageNumber?: number; searchString?: string } {
  return {
    pageSize: query.pageSize,
    ...(query.pageNumber ? { pageNumber: query.pageNumber } : {}),
    ...(query.searchString ? { searchString: query.searchString } : {}),
  };
}

/** Every item of a paged list endpoint, page by page (the API's pages hold at most 100). */
export async function allPages<T>(
  fetchPage: (pageNumber: number) => Promise<{ items: T[]; totalPages: number }>,
  limit = 100,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= limit; page++) {
    const answer = await fetchPage(page);
    items.push(...answer.items);
    if (page >= answer.totalPages) break;
  }
  return items;
}

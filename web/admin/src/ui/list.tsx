import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { count } from './format';

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
      ? `Page ${cursors.length} of ${Math.max(1, data?.totalPages ?? 1)}`
      : `Page ${pageNumber} of ${Math.max(1, data?.totalPages ?? 1)}`,
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

/** A search box that asks the server once typing pauses. */
export function SearchBox(props: { value: string; onChange: (value: string) => void; label?: string }) {
  const [text, setText] = useState(props.value);
  const { value, onChange } = props;
  // The box follows the list (Back, a cleared filter) unless it already says the same; a space
  // being typed after a word is kept.
  useEffect(() => setText((typed) => (typed.trim() === value ? typed : value)), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onChange(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <input
      type="search"
      className="input search"
      placeholder={props.label ?? 'Search'}
      aria-label={props.label ?? 'Search'}
      value={text}
      onChange={(e) => setText(e.target.value)}
    />
  );
}

export function Pager<T>(props: { list: ListState<T> }) {
  const { list } = props;
  return (
    <nav className="pager" aria-label="Pages">
      <span className="muted">
        {count(list.totalCount)} in all · {list.pageLabel}
      </span>
      <button type="button" className="btn" onClick={list.prev} disabled={!list.hasPrev}>
        ← Previous
      </button>
      <button type="button" className="btn" onClick={list.next} disabled={!list.hasNext}>
        Next →
      </button>
    </nav>
  );
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** The API's `orderBy` value for this column (ascending; the descending one is `-` + it). */
  sort?: string;
  className?: string;
}

/**
 * A table of one page of rows. `href` makes each row a link (its first cell holds the link, so
 * the keyboard reaches it); `selection` adds checkboxes for bulk actions.
 */
export function DataTable<T>(props: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string | number;
  href?: (row: T) => string;
  list?: ListState<T>;
  empty?: ReactNode;
  loading?: boolean;
  selection?: { selected: ReadonlySet<string | number>; onChange: (next: Set<string | number>) => void };
  /** What a row is called, for its checkbox's name ("Select Game Key"). */
  rowLabel?: (row: T) => string;
  caption?: string;
}) {
  const { rows, columns, selection, list } = props;
  const allSelected = selection && rows.length > 0 && rows.every((r) => selection.selected.has(props.rowKey(r)));
  const toggle = (key: string | number) => {
    if (!selection) return;
    const next = new Set(selection.selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    selection.onChange(next);
  };
  return (
    <div className="table-wrap">
      <table className="table" aria-busy={props.loading || list?.busy || undefined}>
        {props.caption ? <caption className="sr-only">{props.caption}</caption> : null}
        <thead>
          <tr>
            {selection ? (
              <th className="col-check">
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={Boolean(allSelected)}
                  onChange={() =>
                    selection.onChange(allSelected ? new Set() : new Set(rows.map((r) => props.rowKey(r))))
                  }
                />
              </th>
            ) : null}
            {columns.map((column) => {
              const sorted =
                list && column.sort
                  ? list.orderBy === column.sort
                    ? 'ascending'
                    : list.orderBy === `-${column.sort}`
                      ? 'descending'
                      : undefined
                  : undefined;
              return (
                <th key={column.header} className={column.className} aria-sort={sorted ?? 'none'}>
                  {list && column.sort ? (
                    <button
                      type="button"
                      className="th-sort"
                      onClick={() => list.setOrderBy(sorted === 'ascending' ? `-${column.sort}` : column.sort)}
                    >
                      {column.header}
                      <span aria-hidden="true">
                        {sorted === 'ascending' ? ' ↑' : sorted === 'descending' ? ' ↓' : ''}
                      </span>
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length + (selection ? 1 : 0)} className="empty">
                {props.loading ? 'Loading…' : (props.empty ?? 'Nothing here yet.')}
              </td>
            </tr>
          ) : (
            rows.map((row) => {
              const key = props.rowKey(row);
              return (
                <tr key={key}>
                  {selection ? (
                    <td className="col-check">
                      <input
                        type="checkbox"
                        aria-label={props.rowLabel ? `Select ${props.rowLabel(row)}` : 'Select'}
                        checked={selection.selected.has(key)}
                        onChange={() => toggle(key)}
                      />
                    </td>
                  ) : null}
                  {columns.map((column, i) => (
                    <td key={column.header} className={column.className} data-label={column.header}>
                      {i === 0 && props.href ? (
                        <Link href={props.href(row)} className="row-link">
                          {column.cell(row)}
                        </Link>
                      ) : (
                        column.cell(row)
                      )}
                    </td>
                  ))}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A `<select>` filter bound to a list's URL parameter; the empty choice removes the filter. */
export function FilterSelect<T>(props: {
  list: ListState<T>;
  name: string;
  label: string;
  options: readonly (readonly [value: string, label: string])[];
}) {
  return (
    <select
      className="input"
      aria-label={props.label}
      value={props.list.filters[props.name] ?? ''}
      onChange={(e) => props.list.setFilter(props.name, e.target.value || undefined)}
    >
      <option value="">{props.label}: all</option>
      {props.options.map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </select>
  );
}

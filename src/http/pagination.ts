import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { PageQuery } from '../schemas/common.js';
import { ValidationError } from './errors.js';

/**
 * List paging (contract section 1): offset pages for `pageNumber/pageSize`, and keyset cursors
 * for unbounded lists so page 10,000 costs what page 1 does. Default order everywhere is newest
 * first with the id as tie-break: `(created_at, id)` descending.
 */
export interface PageResult<T> {
  items: T[];
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
}

export function pageWindow(query: Pick<PageQuery, 'pageNumber' | 'pageSize'>): { limit: number; offset: number } {
  return { limit: query.pageSize, offset: (query.pageNumber - 1) * query.pageSize };
}

export function toPage<T>(
  items: T[],
  totalCount: number,
  query: Pick<PageQuery, 'pageNumber' | 'pageSize'>,
): PageResult<T> {
  return {
    items,
    pageNumber: query.pageNumber,
    pageSize: query.pageSize,
    totalCount,
    totalPages: Math.ceil(totalCount / query.pageSize),
  };
}

/** The position after the last row of a page: its sort value (a timestamp, a title, a price) and id. */
export interface KeysetPosition {
  value: string | number;
  /** Integer ids for most tables; invoices have string ids. */
  id: number | string;
}

/**
 * `order` names the list order the position belongs to, for lists with more than one order
 * whose sort values look alike (two timestamps, a timestamp and an amount): a cursor of one
 * order read in another would cut the list at a meaningless place. Lists leave it out for
 * their default order, so cursors given before a list had orders stay valid.
 */
export function encodeCursor(position: KeysetPosition, order?: string): string {
  const parts = order === undefined ? [position.value, position.id] : [position.value, position.id, order];
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/**
 * Decodes a cursor from a query string; anything that is not one of ours, or one of another
 * `order` than the one asked for (see encodeCursor), is a 400.
 */
export function decodeCursor(
  cursor: string,
  valueType: 'number' | 'string' = 'number',
  idType: 'number' | 'string' = 'number',
  order?: string,
): KeysetPosition {
  const invalid = ValidationError.field('cursor', 'is not a cursor this list returned');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== (order === undefined ? 2 : 3)) throw invalid;
  if (order !== undefined && parsed[2] !== order) throw invalid;
  const [value, id] = parsed as unknown[];
  const validValue =
    valueType === 'number'
      ? Number.isSafeInteger(value) && (value as number) >= 0
      : typeof value === 'string' && value.length <= 1000;
  const validId =
    idType === 'number'
      ? Number.isSafeInteger(id) && (id as number) >= 1
      : typeof id === 'string' && id.length > 0 && id.length <= 100;
  if (!validValue || !validId) throw invalid;
  return { value: value as string | number, id: id as number | string };
}

/**
 * Rows after the cursor: `(sortColumn, idColumn) < (value, id)` for newest-first (descending)
 * lists, `>` for ascending ones. A row-value comparison, so one index range scan serves it.
 */
export function afterKeyset(
  sortColumn: string,
  idColumn: string,
  position: KeysetPosition,
  direction: 'asc' | 'desc' = 'desc',
): Expression<SqlBool> {
  const op = sql.raw(direction === 'desc' ? '<' : '>');
  return sql<SqlBool>`(${sql.ref(sortColumn)}, ${sql.ref(idColumn)}) ${op} (${position.value}, ${position.id})`;
}

/** One page of a list: `limit` rows after the keyset position when given, else from `offset`. */
export interface PageSlice {
  limit: number;
  offset?: number;
  after?: KeysetPosition | undefined;
}

/**
 * Orders a list query by `(sortColumn, idColumn)` and cuts one page out of it: after the
 * cursor's position (keyset, the same cost at any depth) or at the offset.
 */
// biome-ignore-start lint/suspicious/noExplicitAny: one function for every table's list query
export function pageOf<Q extends SelectQueryBuilder<any, any, any>>(
  query: Q,
  order: { sortColumn: string; idColumn: string; direction?: 'asc' | 'desc' },
  page: PageSlice,
): Q {
  const direction = order.direction ?? 'desc';
  let q = query as SelectQueryBuilder<any, any, any>;
  if (page.after) q = q.where(afterKeyset(order.sortColumn, order.idColumn, page.after, direction));
  return q
    .orderBy(order.sortColumn, direction)
    .orderBy(order.idColumn, direction)
    .limit(page.limit)
    .offset(page.after ? 0 : (page.offset ?? 0)) as Q;
}
// biome-ignore-end lint/suspicious/noExplicitAny: see above

/**
 * Splits rows fetched with `limit + 1` into the page and the cursor to the next one
 * (null on the last page); `order` as for encodeCursor.
 */
export function keysetPage<T>(
  rows: T[],
  limit: number,
  positionOf: (row: T) => KeysetPosition,
  order?: string,
): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(positionOf(items[items.length - 1]!), order) };
}

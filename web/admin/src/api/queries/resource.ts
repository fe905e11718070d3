import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import type { BodyOf, BodyOperation } from '../bodies';
import { type ListPage, type ListQuery, useList } from './list';

/**
 * A resource the admin lists, adds, edits and deletes, and nothing more: FAQs, announcements,
 * coupons, the blacklist, categories, groups. Its module (faqs.ts …) names its calls, its keys
 * and the operations whose body schemas check its form; the generic screen (ui/ResourceScreen.tsx)
 * and the hooks below do the rest.
 */
export interface SimpleResource<Row, Create extends BodyOperation, Update extends BodyOperation> {
  keys: { all(shopId: number): QueryKey; list(shopId: number): QueryKey };
  /** Other areas that show it (a group is a storefront listing too): read again after a write. */
  shownIn?: readonly ((shopId: number) => QueryKey)[];
  /** The list's filters, URL parameters handed to `list` with the query (`?type=email`). */
  filters?: readonly string[];
  list(shopId: number, query: ListQuery): Promise<ListPage<Row>>;
  create: { operation: Create; send(shopId: number, body: BodyOf<Create>): Promise<Row> };
  update: { operation: Update; send(shopId: number, row: Row, body: BodyOf<Update>): Promise<Row> };
  remove(shopId: number, row: Row): Promise<unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: any resource, whatever its row and operations
export type AnyResource = SimpleResource<any, BodyOperation, BodyOperation>;
export type RowOf<R> = R extends SimpleResource<infer Row, BodyOperation, BodyOperation> ? Row : never;
/** The body a resource's form sends, new or edited (the same schema for every resource here). */
export type BodyOfResource<R> = R extends SimpleResource<unknown, infer C, BodyOperation> ? BodyOf<C> : never;

/** Declares a resource, its types inferred from its calls. */
export const defineResource = <Row, Create extends BodyOperation, Update extends BodyOperation>(
  resource: SimpleResource<Row, Create, Update>,
) => resource;

/** The resource's list, with search, filters and paging in the URL. */
export function useResourceList<Row>(resource: SimpleResource<Row, BodyOperation, BodyOperation>, shopId: number) {
  return useList<Row>(resource.keys.list(shopId), (query) => resource.list(shopId, query), {
    filters: resource.filters ?? [],
  });
}

/** Reads again everything that shows the resource. */
function useInvalidate(resource: AnyResource, shopId: number) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all(
      [resource.keys.all, ...(resource.shownIn ?? [])].map((key) =>
        queryClient.invalidateQueries({ queryKey: key(shopId) }),
      ),
    );
}

/** Adds (`row` null) or saves a row; `onSaved` runs before the lists are read again. */
export function useSaveResource<R extends AnyResource>(
  resource: R,
  shopId: number,
  row: RowOf<R> | null,
  onSaved?: (saved: RowOf<R>) => void,
) {
  const invalidate = useInvalidate(resource, shopId);
  return useMutation({
    mutationFn: (body: BodyOfResource<R>): Promise<RowOf<R>> =>
      row === null ? resource.create.send(shopId, body) : resource.update.send(shopId, row, body),
    onSuccess: async (saved) => {
      onSaved?.(saved);
      await invalidate();
    },
  });
}

/** Deletes a row; `onRemoved` runs before the lists are read again. */
export function useRemoveResource<R extends AnyResource>(
  resource: R,
  shopId: number,
  callbacks: { onRemoved?: () => void; onError?: (error: Error) => void } = {},
) {
  const invalidate = useInvalidate(resource, shopId);
  return useMutation({
    mutationFn: (row: RowOf<R>) => resource.remove(shopId, row),
    onSuccess: async () => {
      callbacks.onRemoved?.();
      await invalidate();
    },
    onError: callbacks.onError,
  });
}

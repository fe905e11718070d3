import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { useList } from './list';

type TicketList = paths['/self/{shopId}/tickets']['get'];
export type TicketStatus = NonNullable<NonNullable<TicketList['parameters']['query']>['status']>;
export type TicketSummary = TicketList['responses'][200]['content']['application/json']['data']['items'][number];
export type Ticket =
  paths['/self/{shopId}/tickets/{ticketId}']['get']['responses'][200]['content']['application/json']['data'];

/**
 * The inbox: the `status` URL parameter is a tab, `statusOf` turns it into the API's filter
 * (the inbox opens on the tickets waiting for an answer).
 */
export function useTicketList(
  shopId: number,
  statusOf: (tab: string | number | undefined) => TicketStatus | undefined,
) {
  return useList<TicketSummary>(
    queryKeys.tickets.list(shopId),
    (query) => {
      const status = statusOf(query.status);
      return unwrap(
        api.GET('/self/{shopId}/tickets', {
          params: {
            path: { shopId },
            query: {
              pageSize: query.pageSize,
              ...(query.searchString ? { searchString: query.searchString } : {}),
              ...(query.cursor ? { cursor: query.cursor } : {}),
              ...(status ? { status } : {}),
            },
          },
        }),
      );
    },
    { filters: ['status'], cursor: true },
  );
}

export function useTicket(shopId: number, ticketId: number) {
  return useQuery({
    queryKey: queryKeys.tickets.detail(shopId, ticketId),
    queryFn: () => unwrap(api.GET('/self/{shopId}/tickets/{ticketId}', { params: { path: { shopId, ticketId } } })),
  });
}

/** After a reply or a close: the ticket shows as answered, and the inbox is read again. */
export function useTicketChanged(shopId: number, ticketId: number) {
  const queryClient = useQueryClient();
  return (next: Ticket) => {
    queryClient.setQueryData(queryKeys.tickets.detail(shopId, ticketId), next);
    return queryClient.invalidateQueries({ queryKey: queryKeys.tickets.list(shopId) });
  };
}

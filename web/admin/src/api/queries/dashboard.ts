import { type Query, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { queryKeys } from './keys';

/** A range of the dashboard: none, the API's default (the last 30 days); `enabled` false waits for it. */
type Range = { fromDate?: string; toDate?: string };

/**
 * While another range loads, the figures of the previous one stay (dimmed); those of another shop
 * do not, so one shop's figures never show under the other's name.
 */
const sameShop =
  (shopId: number) =>
  <T>(previous: T | undefined, previousQuery: Query<T, Error, T, readonly unknown[]> | undefined) =>
    previousQuery?.queryKey[1] === shopId ? previous : undefined;

export function useGeneralDashboard(shopId: number, range: Range, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.dashboard.general(shopId, range),
    queryFn: () => unwrap(api.GET('/self/{shopId}/dashboard/general', { params: { path: { shopId }, query: range } })),
    enabled,
    placeholderData: sameShop(shopId),
  });
}

export function useAdvancedDashboard(shopId: number, range: Range, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.dashboard.advanced(shopId, range),
    queryFn: () => unwrap(api.GET('/self/{shopId}/dashboard/advanced', { params: { path: { shopId }, query: range } })),
    enabled,
    placeholderData: sameShop(shopId),
  });
}

const POLL_MS = 10_000;

/**
 * Visitors of the storefront in the last minutes, asked again every 10 s while the tab is
 * visible: TanStack Query pauses an interval while the document is hidden and asks at once when
 * it shows again.
 */
export function useRealTimeVisits(shopId: number) {
  return useQuery({
    queryKey: queryKeys.dashboard.realTime(shopId),
    queryFn: () => unwrap(api.GET('/self/{shopId}/analytics/visits/real-time', { params: { path: { shopId } } })),
    refetchInterval: POLL_MS,
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: true,
    staleTime: POLL_MS,
  });
}

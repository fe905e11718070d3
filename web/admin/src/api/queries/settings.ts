import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { Answer } from '../types';
import { queryKeys } from './keys';

export type Settings = Answer<'/self/{shopId}/settings', 'get'>;
/** A payment provider's word, as the payment settings name it. */
export type GatewayName = keyof Settings['payments'];

const fetchSettings = (shopId: number) => unwrap(api.GET('/self/{shopId}/settings', { params: { path: { shopId } } }));

/** Every setting of the shop (shop fields, masked payments, design) in one read. */
export function useSettings(shopId: number) {
  return useQuery({ queryKey: queryKeys.settings(shopId), queryFn: () => fetchSettings(shopId) });
}

/**
 * The shop's gateways and whether each is enabled, in the settings' order: the names are the
 * keys the API answers, so a provider added to the server shows here without a change.
 */
export function useGateways(shopId: number) {
  return useQuery({
    queryKey: queryKeys.settings(shopId),
    queryFn: () => fetchSettings(shopId),
    select: (settings) =>
      Object.entries(settings.payments).map(([name, provider]) => ({
        name: name as GatewayName,
        enabled: provider.enabled,
      })),
  });
}

/** The same, enabled ones first (a filter's choices: invoices keep a provider disabled since). */
export function useGatewayNames(shopId: number) {
  return useQuery({
    queryKey: queryKeys.settings(shopId),
    queryFn: () => fetchSettings(shopId),
    select: (settings) =>
      Object.entries(settings.payments)
        .map(([name, provider]) => ({ name: name as GatewayName, enabled: provider.enabled }))
        .sort((a, b) => Number(b.enabled) - Number(a.enabled) || a.name.localeCompare(b.name)),
  });
}

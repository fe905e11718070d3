import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import type { Answer } from '../types';
import { queryKeys } from './keys';
import { type ListQuery, useList } from './list';

type LicenseList = paths['/self/{shopId}/licenses']['get'];
type LicenseListQuery = NonNullable<LicenseList['parameters']['query']>;
export type LicenseSummary = Answer<'/self/{shopId}/licenses', 'get'>['items'][number];
export type License = Answer<'/self/{shopId}/licenses/{licenseId}', 'get'>;
export type LicenseStatus = LicenseSummary['status'];
export type SigningKey = Answer<'/self/{shopId}/licenses/signing-keys', 'get'>[number];

export const licenseStatuses: readonly LicenseStatus[] = ['active', 'inactive', 'expired', 'disabled', 'revoked'];
/** The list filters the licence list takes, as URL parameters of the licences screen. */
export const licenseFilters = ['status', 'productId', 'email'] as const;

const positiveId = (value: string | number | undefined) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

function fetchLicenses(shopId: number, query: ListQuery) {
  const q: LicenseListQuery = { pageSize: query.pageSize };
  if (query.searchString) q.searchString = query.searchString;
  if (query.cursor) q.cursor = query.cursor;
  // A filter typed into the address that the API does not know is left out, not sent as a 400.
  if (query.status && licenseStatuses.includes(query.status as LicenseStatus)) q.status = query.status as LicenseStatus;
  const productId = positiveId(query.productId);
  if (productId) q.productId = productId;
  if (query.email) q.email = String(query.email);
  return unwrap(api.GET('/self/{shopId}/licenses', { params: { path: { shopId }, query: q } }));
}

/** The licences screen's list: search, status, product and buyer in the URL, paged by cursor. */
export function useLicenseList(shopId: number) {
  return useList<LicenseSummary>(queryKeys.licenses.list(shopId), (query) => fetchLicenses(shopId, query), {
    filters: licenseFilters,
    cursor: true,
  });
}

/** One licence with every instance it was activated on. */
export function useLicense(shopId: number, licenseId: number) {
  return useQuery({
    queryKey: queryKeys.licenses.detail(shopId, licenseId),
    queryFn: () => unwrap(api.GET('/self/{shopId}/licenses/{licenseId}', { params: { path: { shopId, licenseId } } })),
  });
}

/** After an action: the licence shows as answered, and the lists it is in are read again. */
export function useLicenseChanged(shopId: number, licenseId: number) {
  const queryClient = useQueryClient();
  return (next: License) => {
    queryClient.setQueryData(queryKeys.licenses.detail(shopId, licenseId), next);
    void queryClient.invalidateQueries({ queryKey: queryKeys.licenses.list(shopId) });
    // An order's page shows its licences' status.
    void queryClient.invalidateQueries({ queryKey: queryKeys.invoices.detail(shopId, next.invoiceId) });
  };
}

/** The keys the shop's licence tokens are signed with (the JWKS lists them). */
export function useSigningKeys(shopId: number) {
  return useQuery({
    queryKey: queryKeys.licenses.signingKeys(shopId),
    queryFn: () => unwrap(api.GET('/self/{shopId}/licenses/signing-keys', { params: { path: { shopId } } })),
  });
}

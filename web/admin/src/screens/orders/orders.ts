import { useQuery } from '@tanstack/react-query';
import { useRef } from 'react';
import { ApiError, api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import type { ListQuery } from '../../ui/list';

type InvoiceList = paths['/self/{shopId}/invoices']['get'];
export type InvoiceListQuery = NonNullable<InvoiceList['parameters']['query']>;
export type Invoice = InvoiceList['responses'][200]['content']['application/json']['data']['items'][number];
export type InvoiceStatus = Invoice['status'];
export type InvoicePart = Invoice['parts'][number];
export type GatewayName = NonNullable<InvoiceListQuery['gateway']>;

export const invoiceStatusLabels: Record<InvoiceStatus, string> = {
  pending: 'Pending',
  completed: 'Completed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};
export const invoiceStatusTones = { pending: 'warn', completed: 'ok', expired: 'muted', cancelled: 'bad' } as const;
export const invoiceStatuses = Object.keys(invoiceStatusLabels) as InvoiceStatus[];

/**
 * What the owner may do with an invoice in each status, as the API decides it (invoices/state.ts
 * and owner.service.ts): only a pending invoice is processed or cancelled, only a completed one
 * gets replacements or its delivery mail again. The API's 409 still answers a race.
 */
export function invoiceActions(status: InvoiceStatus) {
  return {
    process: status === 'pending',
    cancel: status === 'pending',
    replace: status === 'completed',
    resend: status === 'completed',
  };
}

export type InvoiceOrder = NonNullable<InvoiceListQuery['orderBy']>;
/** The orders the invoice list takes (`orderBy`); the API's default is the newest first. */
export const invoiceOrders: readonly InvoiceOrder[] = ['createdAt', '-createdAt', 'total', '-total'];
export const defaultInvoiceOrder: InvoiceOrder = '-createdAt';
const isInvoiceOrder = (value: string | undefined): value is InvoiceOrder =>
  invoiceOrders.includes(value as InvoiceOrder);

/** The list filters the invoice list takes, as URL parameters of the orders screen. */
export const invoiceFilters = ['status', 'gateway', 'fromDate', 'toDate', 'productId', 'customerId'] as const;

const positiveId = (value: string | number | undefined) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** One page of `GET /self/{shopId}/invoices` for a `useList` query (its filters included). */
export function fetchInvoices(shopId: number, query: ListQuery, fixed: Partial<InvoiceListQuery> = {}) {
  const q: InvoiceListQuery = { pageSize: query.pageSize };
  if (query.searchString) q.searchString = query.searchString;
  if (query.cursor) q.cursor = query.cursor;
  // A sort typed into the address that the API does not know is left out, not sent as a 400.
  if (isInvoiceOrder(query.orderBy)) q.orderBy = query.orderBy;
  if (query.status && invoiceStatuses.includes(query.status as InvoiceStatus)) q.status = query.status as InvoiceStatus;
  if (query.gateway) q.gateway = String(query.gateway) as GatewayName;
  if (query.fromDate) q.fromDate = String(query.fromDate);
  if (query.toDate) q.toDate = String(query.toDate);
  const productId = positiveId(query.productId);
  if (productId) q.productId = productId;
  const customerId = positiveId(query.customerId);
  if (customerId) q.customerId = customerId;
  return unwrap(api.GET('/self/{shopId}/invoices', { params: { path: { shopId }, query: { ...q, ...fixed } } }));
}

/**
 * The shop's payment providers (the keys of its payment settings, so a provider added to the
 * server shows without a change here), enabled ones first. Invoices keep the gateway they were
 * made with, so a disabled provider still filters.
 */
export function useGatewayNames(shopId: number) {
  return useQuery({
    queryKey: ['shop', shopId, 'settings'],
    queryFn: () => unwrap(api.GET('/self/{shopId}/settings', { params: { path: { shopId } } })),
    select: (settings) =>
      Object.entries(settings.payments)
        .map(([name, provider]) => ({ name: name as GatewayName, enabled: provider.enabled }))
        .sort((a, b) => Number(b.enabled) - Number(a.enabled) || a.name.localeCompare(b.name)),
  });
}

/** Products to filter by: the first 100 by title (the product filter's choices). */
export function useProductChoices(shopId: number) {
  return useQuery({
    queryKey: ['shop', shopId, 'products', 'choices'],
    queryFn: () =>
      unwrap(
        api.GET('/self/{shopId}/products', {
          params: { path: { shopId }, query: { pageSize: 100, orderBy: 'title' } },
        }),
      ),
  });
}

/**
 * Idempotency-Keys for one form's action: a new key for each new request, the same key when the
 * owner sends the same request again after it got no answer (the network failed), so the server
 * answers the first attempt instead of doing it twice. Any answer of the server ends the key.
 */
export function useIdempotencyKey() {
  const last = useRef<{ request: string; key: string } | null>(null);
  return {
    keyFor(request: unknown): string {
      const text = JSON.stringify(request ?? null);
      if (last.current?.request !== text) last.current = { request: text, key: crypto.randomUUID() };
      return last.current.key;
    },
    settled(error: unknown): void {
      if (!error || error instanceof ApiError) last.current = null;
    },
  };
}

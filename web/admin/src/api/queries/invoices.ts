import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { type ListQuery, useList } from './list';

type InvoiceList = paths['/self/{shopId}/invoices']['get'];
export type InvoiceListQuery = NonNullable<InvoiceList['parameters']['query']>;
export type Invoice = InvoiceList['responses'][200]['content']['application/json']['data']['items'][number];
export type InvoiceStatus = Invoice['status'];
export type InvoiceRefund = Invoice['refunds'][number];
export type InvoiceOrder = NonNullable<InvoiceListQuery['orderBy']>;
type GatewayName = NonNullable<InvoiceListQuery['gateway']>;

export const invoiceStatuses: readonly InvoiceStatus[] = ['pending', 'completed', 'expired', 'cancelled'];
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

/** One page of `GET /self/{shopId}/invoices` for a list query (its filters included). */
function fetchInvoices(shopId: number, query: ListQuery, fixed: Partial<InvoiceListQuery> = {}) {
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

/** The orders screen's list: every filter, search and sort in the URL, paged by cursor. */
export function useInvoiceList(shopId: number) {
  return useList<Invoice>(queryKeys.invoices.list(shopId), (query) => fetchInvoices(shopId, query), {
    filters: invoiceFilters,
    cursor: true,
    defaultOrder: defaultInvoiceOrder,
  });
}

/** One customer's orders, 10 a page. */
export function useCustomerInvoiceList(shopId: number, customerId: number) {
  return useList<Invoice>(
    queryKeys.invoices.ofCustomer(shopId, customerId),
    (query) => fetchInvoices(shopId, query, { customerId }),
    { cursor: true, pageSize: 10, defaultOrder: defaultInvoiceOrder },
  );
}

export function useInvoice(shopId: number, invoiceId: string) {
  return useQuery({
    queryKey: queryKeys.invoices.detail(shopId, invoiceId),
    queryFn: () => unwrap(api.GET('/self/{shopId}/invoices/{invoiceId}', { params: { path: { shopId, invoiceId } } })),
  });
}

/**
 * After an order changed (processed, cancelled, refunded …): shows it as answered (or reads it
 * again, given nothing), and refreshes the lists and figures it counts in.
 */
export function useInvoiceChanged(shopId: number, invoiceId: string) {
  const queryClient = useQueryClient();
  return (next: Invoice | undefined) => {
    const key = queryKeys.invoices.detail(shopId, invoiceId);
    if (next) queryClient.setQueryData(key, next);
    else void queryClient.invalidateQueries({ queryKey: key });
    void queryClient.invalidateQueries({ queryKey: queryKeys.invoices.list(shopId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.customers.all(shopId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.dashboard.all(shopId) });
  };
}

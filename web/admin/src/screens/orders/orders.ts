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
export type InvoiceRefund = Invoice['refunds'][number];
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
 * gets replacements, its delivery mail again or refunds (until it is refunded in full, payment.service.ts).
 * The API's 409 still answers a race.
 */
export function invoiceActions(invoice: Pick<Invoice, 'status' | 'total' | 'refunded'>) {
  const { status } = invoice;
  return {
    process: status === 'pending',
    cancel: status === 'pending',
    replace: status === 'completed',
    resend: status === 'completed',
    refund: status === 'completed' && invoice.refunded < invoice.total,
  };
}

/**
 * How an order's money moved, which decides what Process and Refund mean for it: `card` and
 * `crypto` orders are paid on the provider's page (Stripe; the crypto provider), `balance` ones
 * from the buyer's store balance, `manual` ones outside shopd (tip jar, wallets, mobile cash),
 * confirmed by the owner.
 */
export type PaymentKind = 'card' | 'crypto' | 'balance' | 'manual';
export function paymentKind(gateway: string): PaymentKind {
  if (gateway === 'cardconnect') return 'card';
  if (gateway === 'cryptocommerce') return 'crypto';
  if (gateway === 'balance') return 'balance';
  return 'manual';
}

/** The gateway's name as the owner knows it. */
export const gatewayLabels: Record<string, string> = {
  cardconnect: 'Card (Stripe)',
  cryptocommerce: 'Crypto (Coinbase Commerce)',
  balance: 'Store balance',
  tipjar: 'Tip jar',
  walletemail: 'Wallet (e-mail)',
  mobilecash: 'Mobile cash',
  'wallet-ff': 'Wallet FF',
  'virtual-payments': 'Virtual payments',
  cardreader: 'Card reader',
};
export const gatewayLabel = (gateway: string) => gatewayLabels[gateway] ?? gateway;

/**
 * How a refund went back, from its `method`: through the provider (a card order paid on Stripe's
 * page), to the store balance, or recorded (the owner sends the money: crypto, manual methods, and
 * card orders marked paid by hand).
 */
export function refundHow(refund: InvoiceRefund, gateway: string): string {
  const provider = paymentKind(gateway) === 'card' ? 'Stripe' : 'the provider';
  if (refund.method === 'balance') return "Credited to the buyer's balance";
  if (refund.method === 'provider' && refund.status === 'pending') return `Being refunded through ${provider}`;
  if (refund.method === 'provider' && refund.providerRefundId) return `Refunded through ${provider}`;
  return 'Recorded: you send the money';
}

/** What is left to refund, in the currency's minor-unit precision (no floating-point tails). */
export function refundableAmount(invoice: Pick<Invoice, 'total' | 'refunded' | 'currency'>): number {
  const digits = currencyDigits(invoice.currency);
  return Number(Math.max(0, invoice.total - invoice.refunded).toFixed(digits));
}

/** How many decimals the currency's amounts have (2 for EUR, 0 for JPY). */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
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

import { useRef } from 'react';
import { ApiError } from '../../api/client';
import type { Invoice, InvoiceRefund, InvoiceStatus } from '../../api/queries/invoices';
import { strings } from '../../strings';

export const invoiceStatusLabels: Record<InvoiceStatus, string> = strings.orders.statusLabels;
export const invoiceStatusTones = { pending: 'warn', completed: 'ok', expired: 'muted', cancelled: 'bad' } as const;

/**
 * What the owner may do with an invoice in each status, as the API decides it (invoices/state.ts
 * and owner.service.ts): only a pending invoice is processed or cancelled, only a completed one
 * gets replacements, its delivery mail again or refunds (until it is refunded in full, payments/refund.service.ts).
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

/** The gateway's name, the same the buyer reads (src/shared/gateway-names.ts). */
export { gatewayName as gatewayLabel } from '../../../../../src/shared/gateway-names';

/**
 * How a refund went back, from its `method`: through the provider (a card order paid on Stripe's
 * page), to the store balance, or recorded (the owner sends the money: crypto, manual methods, and
 * card orders marked paid by hand).
 */
export function refundHow(refund: InvoiceRefund, gateway: string): string {
  const provider = paymentKind(gateway) === 'card' ? strings.orders.stripe : strings.orders.theProvider;
  if (refund.method === 'balance') return strings.orders.creditedToTheBuyers;
  if (refund.method === 'provider' && refund.status === 'pending') return strings.orders.beingRefundedThrough(provider);
  if (refund.method === 'provider' && refund.providerRefundId) return strings.orders.refundedThrough(provider);
  return strings.orders.recordedYouSendThe;
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

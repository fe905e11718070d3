import type { Context, WriteContext } from '../../domain/context.js';
import { invoiceRefunded } from './domain-events.js';
import { queueCheckoutMail, readPlacedOrder } from './invoice-mail.js';
import type { InvoiceRefundRow, InvoiceRow, InvoiceStatus } from './invoices.table.js';
import * as repo from './payment.repository.js';
import { findInvoice } from './repository.js';

/**
 * An order's payment record, as the payments module (src/modules/payments) writes it: the hosted
 * payment started for an invoice, the owner's notes of what a provider said, and refunds held,
 * made or given back. The invoice and its refunds are this module's rows: the payments module
 * decides when, these operations how. A status never moves here (lifecycle.service.ts does that).
 */

/**
 * Stores the provider's payment page of a pending invoice of a hosted gateway, whose expiry
 * becomes `expiresAt`, then queues the "how to pay" mail: only now, so a provider that could not
 * start the payment leaves no mail behind, and the mail's deadline is the page's (`closesAt`).
 * `pageEndsAt`: when the provider closes the page by itself, if that is after the invoice expires
 * (the shop's hold is shorter than the provider's minimum); null otherwise.
 */
export async function attachHostedPayment(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  payment: { ref: string; url: string; closesAt: number; expiresAt: number; pageEndsAt: number | null },
): Promise<void> {
  const { db } = ctx;
  await repo.setHostedPayment(db, shopId, invoiceId, payment, ctx.clock.now());
  await queueCheckoutMail(db, await readPlacedOrder(db, shopId, invoiceId), ctx.config, ctx.clock.now());
}

/**
 * Expired orders whose provider page outlives them (`pageEndsAt` of attachHostedPayment), at most
 * `limit`: the payments module closes each page, then `forgetLapsedPage`.
 */
export function lapsedPages(ctx: Context, limit: number): Promise<InvoiceRow[]> {
  return repo.lapsedPages(ctx.db, ctx.clock.now(), limit);
}

export function forgetLapsedPage(ctx: Context, invoice: InvoiceRow): Promise<void> {
  return repo.forgetPage(ctx.db, invoice.shop_id, invoice.id);
}

/**
 * Writes a note for the owner on the invoice, while it has one of the statuses `onlyIf` names (a
 * completion meanwhile keeps it clean); `holdUntil` (a pending invoice only) keeps it from expiring
 * before then, so its stock stays held while the owner decides; `providerReference` keeps the
 * reference of a payment the provider confirmed, for a refund.
 */
export async function notePayment(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  note: string,
  options: { onlyIf: InvoiceStatus[]; holdUntil?: number; providerReference?: string },
): Promise<void> {
  await repo.notePayment(ctx.db, shopId, invoiceId, note, options, ctx.clock.now());
}

/** The invoice's refund still being asked of its provider, if one is. */
export async function pendingRefund(
  ctx: Context,
  shopId: number,
  invoiceId: string,
): Promise<InvoiceRefundRow | undefined> {
  return (await repo.listRefunds(ctx.db, shopId, [invoiceId])).find((r) => r.status === 'pending');
}

/**
 * Holds `amount` of a completed invoice for a refund and writes the refund's row (`pending`), in
 * the caller's transaction: the refund's id, or null when that would give back more than the
 * total (another refund took it first) or the invoice is not completed. The conditional update is
 * what keeps two concurrent refunds from giving back more than was paid.
 */
export async function holdRefund(
  tx: Context,
  shopId: number,
  invoiceId: string,
  refund: Pick<InvoiceRefundRow, 'amount' | 'reason' | 'method' | 'created_at'>,
): Promise<number | null> {
  if (!(await repo.holdRefund(tx.db, shopId, invoiceId, refund.amount, refund.created_at))) return null;
  return repo.insertRefund(tx.db, {
    shop_id: shopId,
    invoice_id: invoiceId,
    provider_refund_id: null,
    status: 'pending',
    ...refund,
  });
}

/** Gives a held refund back (its provider refused it): the row goes, the invoice's `refunded` drops by its amount. */
export async function dropRefund(
  tx: Context,
  shopId: number,
  invoiceId: string,
  refund: { id: number; amount: number },
): Promise<void> {
  await repo.deleteRefund(tx.db, shopId, refund.id);
  await repo.releaseRefund(tx.db, shopId, invoiceId, refund.amount, tx.clock.now());
}

/** Marks a held refund made: false when another request did so first (and so recorded its effects). */
export async function finishRefund(
  tx: Context,
  shopId: number,
  refundId: number,
  made: { providerRefundId: string | null; method: InvoiceRefundRow['method'] },
): Promise<boolean> {
  return repo.finishRefund(tx.db, shopId, refundId, made.providerRefundId, made.method);
}

/**
 * Announces a refund made (`invoice.refunded`: the buyer's lifetime spend, the mail, the webhook,
 * the dashboards), once its row is finished and a balance refund credited, in the same transaction.
 */
export async function refundRecorded(
  tx: WriteContext,
  invoice: InvoiceRow,
  refund: Parameters<typeof invoiceRefunded>[2],
): Promise<void> {
  // The row as it is now, as the event promises: its `refunded` counts this refund (held before the
  // caller's read of `invoice`), so a subscriber sees a full refund as one (licences, downloads).
  const current = (await findInvoice(tx.db, invoice.shop_id, invoice.id)) ?? invoice;
  return invoiceRefunded(tx, current, refund, tx.clock.now());
}

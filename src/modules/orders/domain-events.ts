import type { WriteContext } from '../../domain/context.js';
import { type DomainEvents, domainEvents, type PartDelivery } from '../../domain/events.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { PlacedOrder } from './invoice-mail.js';
import type { InvoicePartRow, InvoiceRow } from './invoices.table.js';
import { ownerInvoiceView } from './owner-view.js';
import * as repo from './repository.js';

/**
 * The invoice transitions as domain events (src/domain): one function per transition (created,
 * completed, cancelled or expired, replaced, refunded), called by the write that makes the
 * change, inside its transaction, after the change itself. Each emits the event with what its
 * subscribers need (and the webhook's facts); what is derived from it (dashboard rollups,
 * storefront totals, units sold and stock, customer totals, the mail and webhook outboxes, the
 * page cache) is each owner's subscriber's business (the modules' subscribers.ts), not this file's.
 *
 * Lock order. Every write transaction of a shop takes, in this order: the shop lock (shared:
 * `shareShop`; an owner's catalog or settings write takes it exclusively), the rows it changes
 * (customers, then variants in id order), and last the shop's rollup lock (`rollup_state`), taken
 * by the rollups' subscriber, registered to run after every other. One order for every writer
 * means no two wait for each other (PostgreSQL); on SQLite write transactions run one at a time.
 */

/**
 * What an `invoice.*` webhook reports: `invoiceId` and the event's own fields and, when an
 * endpoint is subscribed to it, `invoice`: the invoice exactly as the owner API shows it at that
 * moment, read in the same transaction, so a receiver needs no follow-up call and never sees a
 * later state under an earlier event.
 */
function invoiceWebhook(tx: WriteContext, invoice: InvoiceRow, now: number, extra: Record<string, unknown> = {}) {
  return {
    at: now,
    data: { invoiceId: invoice.id, ...extra },
    detail: async () => {
      const row = await repo.findInvoice(tx.db, invoice.shop_id, invoice.id);
      if (!row) throw new Error(`invoice ${invoice.id} of shop ${invoice.shop_id} vanished inside its own transaction`);
      return { invoice: await ownerInvoiceView(tx.db, row, tx.config) };
    },
  };
}

/** A new pending invoice (its stock already reserved and its parts written). `customerCreated` when its customer is new. */
export function invoiceCreated(
  tx: WriteContext,
  order: PlacedOrder,
  customerCreated: boolean,
  now: number,
): Promise<void> {
  const { invoice } = order;
  return domainEvents.emit(tx, 'invoice.created', {
    ...order,
    customerCreated,
    now,
    webhook: invoiceWebhook(tx, invoice, now, {
      total: fromMinorUnits(invoice.total, invoice.currency),
      currency: invoice.currency,
      gateway: invoice.gateway,
    }),
  });
}

/** A pending invoice completed (status, deliverables, balance and customer totals already written). */
export function invoiceCompleted(
  tx: WriteContext,
  invoice: InvoiceRow,
  parts: InvoicePartRow[],
  completion: {
    now: number;
    repeatPurchase: boolean;
    commission: number;
    delivered: PartDelivery[];
  },
): Promise<void> {
  const { now, repeatPurchase, delivered } = completion;
  return domainEvents.emit(tx, 'invoice.completed', {
    invoice,
    parts,
    now,
    repeatPurchase,
    delivered,
    webhook: invoiceWebhook(tx, invoice, now, {
      total: fromMinorUnits(invoice.total, invoice.currency),
      currency: invoice.currency,
      commission: completion.commission,
    }),
  });
}

/** A pending invoice expired or was cancelled: its reserved stock comes back (products' subscriber). */
export async function invoiceEndedUnpaid(
  tx: WriteContext,
  invoice: InvoiceRow,
  to: 'expired' | 'cancelled',
  now: number,
): Promise<void> {
  const event: DomainEvents['invoice.expired'] = {
    invoice,
    parts: await repo.listParts(tx.db, invoice.shop_id, [invoice.id]),
    now,
    webhook: invoiceWebhook(tx, invoice, now),
  };
  await domainEvents.emit(tx, to === 'expired' ? 'invoice.expired' : 'invoice.cancelled', event);
}

/** Items of a completed part delivered again (the replacement row already written). */
export function invoiceReplaced(
  tx: WriteContext,
  invoice: InvoiceRow,
  replacement: PartDelivery,
  now: number,
): Promise<void> {
  return domainEvents.emit(tx, 'invoice.replaced', {
    invoice,
    replacement,
    now,
    webhook: invoiceWebhook(tx, invoice, now, { partInvoiceId: replacement.part.id, quantity: replacement.quantity }),
  });
}

/**
 * A refund of a completed invoice made (its row marked succeeded, the invoice's `refunded`
 * already counting it, a balance refund already credited). Revenue keeps the order's total: the
 * dashboard shows refunds beside it.
 */
export function invoiceRefunded(
  tx: WriteContext,
  invoice: InvoiceRow,
  refund: DomainEvents['invoice.refunded']['refund'],
  now: number,
): Promise<void> {
  return domainEvents.emit(tx, 'invoice.refunded', {
    invoice,
    refund,
    now,
    webhook: invoiceWebhook(tx, invoice, now, {
      refundId: refund.id,
      amount: fromMinorUnits(refund.amount, invoice.currency),
      currency: invoice.currency,
      reason: refund.reason,
      method: refund.method,
    }),
  });
}

import type { WriteContext } from '../../domain/context.js';
import type { DomainEventBus, DomainEvents } from '../../domain/events.js';
import { revokeInvoiceDownloads } from './downloads.service.js';

/**
 * A full refund (the invoice's `refunded`, which already counts this refund, reaching its
 * total) ends the order's downloads in the refund's transaction: its links answer 410 and the
 * order shows none. A partial refund leaves them.
 */
async function revokeOnFullRefund(tx: WriteContext, { invoice, now }: DomainEvents['invoice.refunded']) {
  if (invoice.refunded < invoice.total) return;
  await revokeInvoiceDownloads(tx.db, invoice.shop_id, invoice.id, now);
}

/** A dispute (chargeback) ends them as a full refund does: the buyer has taken the money back. */
async function revokeOnDispute(tx: WriteContext, { invoice, now }: DomainEvents['invoice.disputed']) {
  await revokeInvoiceDownloads(tx.db, invoice.shop_id, invoice.id, now);
}

export function subscribe(events: DomainEventBus): void {
  events.on('invoice.refunded', revokeOnFullRefund);
  events.on('invoice.disputed', revokeOnDispute);
}

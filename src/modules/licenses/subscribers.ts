import type { WriteContext } from '../../domain/context.js';
import type { DomainEventBus, DomainEvents } from '../../domain/events.js';
import { revokeInvoiceLicenses } from './service.js';

/**
 * A full refund (the invoice's `refunded` reaching its total) revokes the licences the order
 * issued, in the refund's transaction, each announced as `license.revoked`. A partial refund
 * leaves them: the owner revokes by hand what it should end.
 */
async function revokeOnFullRefund(tx: WriteContext, { invoice, now }: DomainEvents['invoice.refunded']) {
  if (invoice.refunded < invoice.total) return;
  await revokeInvoiceLicenses(tx.db, invoice.shop_id, invoice.id, 'refund', now);
}

/** A dispute (chargeback) ends them as a full refund does: the buyer has taken the money back. */
async function revokeOnDispute(tx: WriteContext, { invoice, now }: DomainEvents['invoice.disputed']) {
  await revokeInvoiceLicenses(tx.db, invoice.shop_id, invoice.id, 'dispute', now);
}

export function subscribe(events: DomainEventBus): void {
  events.on('invoice.refunded', revokeOnFullRefund);
  events.on('invoice.disputed', revokeOnDispute);
}

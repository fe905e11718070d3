import type { DomainEventBus } from '../../domain/events.js';
import { recordRefund } from './repository.js';

/** The buyer's lifetime spend: a refund takes its amount (in the shop's currency today) out of it. */
export function subscribe(events: DomainEventBus): void {
  events.on('invoice.refunded', (tx, { invoice, refund, now }) =>
    recordRefund(tx.db, invoice.shop_id, invoice.customer_id, refund.localAmount, now),
  );
}

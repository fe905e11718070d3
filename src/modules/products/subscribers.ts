import type { Handler } from '../../domain/dispatcher.js';
import type { DomainEventBus, DomainEvents } from '../../domain/events.js';
import { addSoldCounts, returnOrderStock } from './fulfilment.js';

/** An unpaid order that ended gives its stock back. */
const returnStock: Handler<DomainEvents['invoice.expired']> = (tx, { invoice, parts }) =>
  returnOrderStock(tx.db, invoice.shop_id, invoice.id, parts);

/** Units sold and stock: a completed order counts its units; an unpaid one that ended returns its stock. */
export function subscribe(events: DomainEventBus): void {
  events.on('invoice.completed', (tx, { invoice, parts }) => addSoldCounts(tx.db, invoice.shop_id, parts));
  events.on('invoice.expired', returnStock);
  events.on('invoice.cancelled', returnStock);
}

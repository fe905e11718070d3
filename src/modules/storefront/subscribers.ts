import { type DomainEventBus, type DomainEventType, domainEventTypes, shopOf } from '../../domain/events.js';
import { shopContentChanged } from './page-cache.js';
import { addFeedbackToTotals, countFirstBuyer } from './repository.js';

/**
 * The storefront's read model: the shop's buyers (a first completed order) and feedback totals,
 * and, once the change has committed, the shop's cached pages (every event changes what a page
 * shows: stock, sold counts, ratings).
 */
export function subscribe(events: DomainEventBus): void {
  // A completion that is not a repeat purchase is the customer's first completed order (decided
  // under the customer's row lock, so two completions of one customer never both count).
  events.on('invoice.completed', async (tx, { invoice, repeatPurchase }) => {
    if (!repeatPurchase) await countFirstBuyer(tx.db, invoice.shop_id);
  });
  events.on('feedback.created', (tx, { feedback }) => addFeedbackToTotals(tx.db, feedback.shopId, feedback));
  for (const type of domainEventTypes) pagesChangeOn(events, type);
}

function pagesChangeOn<K extends DomainEventType>(events: DomainEventBus, type: K): void {
  events.on(type, async (tx, event) => {
    const shopId = shopOf(type, event);
    tx.afterCommit(`pages:${shopId}`, () => shopContentChanged(shopId));
  });
}

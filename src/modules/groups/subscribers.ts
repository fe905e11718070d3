import type { DomainEventBus } from '../../domain/events.js';
import { removeFromGroups } from './repository.js';

/** A group's members are live products: deleted ones leave every group, in the deletion's transaction. */
export function subscribe(events: DomainEventBus): void {
  events.on('products.deleted', (tx, { shopId, productIds }) => removeFromGroups(tx.db, shopId, productIds));
}

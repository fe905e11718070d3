import { domainEvents } from './domain/events.js';
import { subscribeCustomers } from './modules/customers/index.js';
import { subscribeEvents } from './modules/events/index.js';
import { subscribeInvoiceMails } from './modules/orders/index.js';
import { subscribeProducts } from './modules/products/index.js';
import { subscribeRollups } from './modules/rollups/index.js';
import { subscribeStorefront } from './modules/storefront/index.js';

/**
 * Wires every module's subscribers to the domain events (src/domain): the server (src/app.ts)
 * and the CLI (src/cli.ts), whose commands write too, call it first. Each module's subscribers
 * run in the order below, in the transaction of the change; the rollups' run last wherever they
 * are listed (the lock order). Calling it again changes nothing.
 */
export function wireSubscribers(): void {
  for (const subscribe of [
    subscribeProducts,
    subscribeCustomers,
    subscribeInvoiceMails,
    subscribeStorefront,
    subscribeEvents,
    subscribeRollups,
  ]) {
    domainEvents.use(subscribe);
  }
}

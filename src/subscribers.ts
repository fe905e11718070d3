import { domainEvents } from './domain/events.js';
import { subscribeCustomers } from './modules/customers/index.js';
import { disputesOfInvoices, recordInvoiceView } from './modules/disputes/index.js';
import { feedbacksOfInvoices } from './modules/feedbacks/index.js';
import { subscribeFiles } from './modules/files/index.js';
import { subscribeGroups } from './modules/groups/index.js';
import { subscribeLicenses } from './modules/licenses/index.js';
import { invoiceDisputesWith, readInvoiceFeedbacksWith, subscribeInvoiceMails } from './modules/orders/index.js';
import { subscribeProducts } from './modules/products/index.js';
import { subscribeRollups } from './modules/rollups/index.js';
import { subscribeStorefront } from './modules/storefront/index.js';
import { subscribeWebhooks } from './modules/webhooks/index.js';

/**
 * Wires every module's subscribers to the domain events (src/domain): the server (src/app.ts)
 * and the CLI (src/cli.ts), whose commands write too, call it first. Each module's subscribers
 * run in the order below, in the transaction of the change; the rollups' run last wherever they
 * are listed (the lock order). It also gives the orders module the feedbacks module's reading of
 * the feedbacks left on invoices (the owner's invoice views and the `invoice.*` webhooks show
 * them), which orders cannot import: feedbacks builds on orders. Calling it again changes nothing.
 */
export function wireSubscribers(): void {
  for (const subscribe of [
    subscribeProducts,
    subscribeGroups,
    subscribeCustomers,
    subscribeInvoiceMails,
    subscribeFiles,
    subscribeLicenses,
    subscribeStorefront,
    subscribeWebhooks,
    subscribeRollups,
  ]) {
    domainEvents.use(subscribe);
  }
  readInvoiceFeedbacksWith(feedbacksOfInvoices);
  // Likewise the disputes module's: the owner's invoice view shows a dispute, and the invoice's views are evidence.
  invoiceDisputesWith({ disputesOf: disputesOfInvoices, recordView: recordInvoiceView });
}

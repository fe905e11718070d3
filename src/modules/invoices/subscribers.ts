import type { DomainEventBus } from '../../domain/events.js';
import { isHostedProvider } from '../shops/index.js';
import { queueCheckoutMail, queueDeliveryMail, queueRefundMail, queueReplacementMail } from './invoice-mail.js';

/**
 * The buyer's invoice mails, written to the mail outbox in the transaction of the change. They
 * stay beside the invoices: they render the invoice's own views (payment instructions, items).
 */
export function subscribe(events: DomainEventBus): void {
  events.on('invoice.created', async (trx, { invoice, shop, parts, fields, links }) => {
    // A card or crypto order's mail waits for the provider's page (payment.service.ts startHostedPayment).
    if (!isHostedProvider(invoice.gateway)) await queueCheckoutMail(trx, { invoice, shop, parts, fields }, links);
  });
  events.on('invoice.completed', (trx, { invoice, delivered, links }) =>
    queueDeliveryMail(trx, invoice, invoice.customer_email, delivered, links),
  );
  events.on('invoice.replaced', (trx, { invoice, replacement, links }) =>
    queueReplacementMail(trx, invoice, replacement, links),
  );
  events.on('invoice.refunded', (trx, { invoice, refund, links }) =>
    queueRefundMail(trx, invoice.shop_id, invoice.id, refund, links),
  );
}

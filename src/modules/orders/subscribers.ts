import type { DomainEventBus } from '../../domain/events.js';
import { isHostedProvider } from '../shops/index.js';
import { queueCheckoutMail, queueDeliveryMail, queueRefundMail, queueReplacementMail } from './invoice-mail.js';
import { reverseCommission } from './lifecycle.service.js';

/**
 * The buyer's invoice mails, written to the mail outbox in the transaction of the change. They
 * stay beside the invoices: they render the invoice's own views (payment instructions, items).
 * Their links are built from the app's PUBLIC_URL and STOREFRONT_DOMAIN (the context's config).
 */
export function subscribe(events: DomainEventBus): void {
  events.on('invoice.created', async (tx, { invoice, shop, parts, fields }) => {
    // A card or crypto order's mail waits for the provider's page (payments' startHostedPayment, through the port).
    if (!isHostedProvider(invoice.gateway))
      await queueCheckoutMail(tx.db, { invoice, shop, parts, fields }, tx.config, tx.clock.now());
  });
  events.on('invoice.completed', (tx, { invoice, delivered, now }) =>
    queueDeliveryMail(tx.db, invoice, invoice.customer_email, delivered, tx.config, now),
  );
  events.on('invoice.replaced', (tx, { invoice, replacement, now }) =>
    queueReplacementMail(tx.db, invoice, replacement, tx.config, now),
  );
  events.on('invoice.refunded', (tx, { invoice, refund, now }) =>
    queueRefundMail(tx.db, invoice.shop_id, invoice.id, refund, tx.config, now),
  );
  events.on('invoice.refunded', (tx, { invoice, refund, now }) => reverseCommission(tx, invoice, refund.amount, now));
}

// The catalogue of the events the webhooks deliver (publish.ts records each in the events module's
// store and queues its deliveries).

/** The event types of contract section 10. */
export const eventTypes = [
  'invoice.created',
  'invoice.completed',
  'invoice.expired',
  'invoice.replaced',
  'invoice.cancelled',
  'invoice.refunded',
  'invoice.disputed',
  'ticket.created',
  'ticket.message',
  'feedback.created',
  'product.out_of_stock',
  'customer.balance_changed',
  'license.activated',
  'license.deactivated',
  'license.revoked',
] as const;

export type EventType = (typeof eventTypes)[number];

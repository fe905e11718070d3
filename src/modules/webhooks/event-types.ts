// The catalogue lives with the webhooks, which subscribe to it; the events module records them
// (and re-exports EventType for the modules that do).

/** The event types of contract section 10. */
export const eventTypes = [
  'invoice.created',
  'invoice.completed',
  'invoice.expired',
  'invoice.replaced',
  'invoice.cancelled',
  'invoice.refunded',
  'ticket.created',
  'ticket.message',
  'feedback.created',
  'product.out_of_stock',
  'customer.balance_changed',
] as const;

export type EventType = (typeof eventTypes)[number];

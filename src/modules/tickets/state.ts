import { ConflictError } from '../../http/errors.js';
import type { TicketStatus } from './tickets.table.js';

/** What can happen to a ticket. */
export type TicketAction = 'shop_message' | 'customer_message' | 'close';

/**
 * The ticket lifecycle (contract 7) as a table: a shop message answers the ticket, a customer
 * message (re)opens it, and closing ends it. A closed ticket takes nothing more.
 */
export const ticketTransitions: Readonly<Record<TicketStatus, Readonly<Partial<Record<TicketAction, TicketStatus>>>>> =
  {
    open: { shop_message: 'answered', customer_message: 'open', close: 'closed' },
    answered: { shop_message: 'answered', customer_message: 'open', close: 'closed' },
    closed: {},
  };

const verbs: Record<TicketAction, string> = {
  shop_message: 'take a message',
  customer_message: 'take a message',
  close: 'be closed',
};

/** The status after `action`, or a 409 when the declared table does not allow it. */
export function nextTicketStatus(from: TicketStatus, action: TicketAction): TicketStatus {
  const to = ticketTransitions[from][action];
  if (to === undefined)
    throw new ConflictError(`The ticket is ${from}; it cannot ${verbs[action]}.`, [`status: is ${from}`]);
  return to;
}

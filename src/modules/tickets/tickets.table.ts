import type { Generated, Selectable } from 'kysely';

export type TicketStatus = 'open' | 'answered' | 'closed';
export type MessageAuthor = 'customer' | 'shop';

export interface TicketsTable {
  id: Generated<number>;
  shop_id: number;
  title: string;
  email: string;
  invoice_id: string | null;
  status: Generated<TicketStatus>;
  /** SHA-256 of the customer's access key (shown once, at creation). */
  access_key_hash: string;
  created_at: number;
  updated_at: number;
}

export interface TicketMessagesTable {
  id: Generated<number>;
  shop_id: number;
  ticket_id: number;
  author: MessageAuthor;
  content: string;
  created_at: number;
}

export type TicketRow = Selectable<TicketsTable>;
export type TicketMessageRow = Selectable<TicketMessagesTable>;

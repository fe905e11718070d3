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
  /** SHA-256 of the customer's access key: what a request's key is checked against. */
  access_key_hash: string;
  /**
   * The access key sealed with the server's key (src/security/secret-box.ts), so a later mail (the
   * shop's answer) can carry the ticket's link; null for tickets opened before migration 0018.
   */
  access_key_sealed: Generated<string | null>;
  /** The language the ticket was opened in (`en`, `de`), in which its mails are written; null: the shop's (migration 0036). */
  locale: Generated<string | null>;
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

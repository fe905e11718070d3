import type { Generated, Selectable } from 'kysely';

/** `dropped`: decided but never to be sent (an address that cannot receive mail); no worker claims it. */
export type MailStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'dropped';

/** Mail to send, written in the transaction that decides it; a worker sends it. */
export interface MailOutboxTable {
  id: Generated<number>;
  shop_id: number;
  to_address: string;
  subject: string;
  body_text: string;
  /** The same content as HTML (migration 0018); null for mail written before, sent as text alone. */
  body_html: Generated<string | null>;
  status: Generated<MailStatus>;
  attempts: Generated<number>;
  last_error: Generated<string | null>;
  /** The client whose action caused a budgeted mail (src/http/client-net.ts); null for the others (migration 0029). */
  client_net: Generated<string | null>;
  next_attempt_at: number;
  created_at: number;
  sent_at: Generated<number | null>;
  /** Times a worker claimed the row (migration 0023): a claim is told apart by it. */
  claims: Generated<number>;
  /** The Message-ID header, chosen at the first claim and sent with every attempt. */
  message_id: Generated<string | null>;
  /** What the SMTP server answered when it took the mail (or the `.eml` file's path). */
  transport_response: Generated<string | null>;
}

export type MailRow = Selectable<MailOutboxTable>;

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { insertMail, unsentMail } from './repository.js';

type Conn = Kysely<Database>;

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** The same content as HTML (src/modules/mail/templates); sent beside the text as multipart/alternative. */
  html?: string;
}

/**
 * Addresses under `.invalid`, the top-level domain reserved never to exist (RFC 2606, RFC 6761):
 * no mail to them can ever arrive. The demo seed gives its fictitious customers such addresses.
 */
export function neverReceivesMail(address: string): boolean {
  return /(^|\.)invalid\.?$/i.test(address.slice(address.lastIndexOf('@') + 1));
}

/**
 * Writes one mail to the outbox inside the caller's transaction; the worker sends it. Mail to an
 * address that can never receive it is recorded as `dropped` instead, which no worker sends.
 */
export function enqueueMail(db: Conn, shopId: number, mail: OutgoingMail, now: number): Promise<void> {
  const dropped = neverReceivesMail(mail.to)
    ? { reason: 'not sent: .invalid addresses never receive mail (RFC 6761)' }
    : undefined;
  return insertMail(db, shopId, mail, now, dropped);
}

/** The mail not sent yet, of every shop (the operator's metrics): how much, and when the oldest was queued. */
export function mailBacklog(ctx: Context): Promise<{ count: number; oldestCreatedAt: number | null }> {
  return unsentMail(ctx.db);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
export const MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 30 * SECOND;
const MAX_RETRY_MS = 60 * MINUTE;

/** Delay before the next try after `attempts` failed ones: 30 s, 1 min, 2 min, … capped at 1 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
}

import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The event types of contract section 10. */
export type EventType =
  | 'invoice.created'
  | 'invoice.completed'
  | 'invoice.expired'
  | 'invoice.replaced'
  | 'invoice.cancelled'
  | 'ticket.created'
  | 'ticket.message'
  | 'feedback.created'
  | 'product.out_of_stock'
  | 'customer.balance_changed';

/**
 * Records an event in the caller's transaction (the outbox the webhook worker reads), so an
 * event exists exactly when the change that caused it committed.
 */
export async function recordEvent(db: Kysely<Database>, shopId: number, type: EventType, data: unknown, now = Date.now()): Promise<string> {
  const id = `evt_${randomBytes(16).toString('base64url')}`;
  await db.insertInto('events').values({ id, shop_id: shopId, type, payload: JSON.stringify(data), created_at: now }).execute();
  return id;
}

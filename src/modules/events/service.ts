import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { fanOut } from '../webhooks/service.js';

/** The event types of contract section 10. */
export const eventTypes = [
  'invoice.created',
  'invoice.completed',
  'invoice.expired',
  'invoice.replaced',
  'invoice.cancelled',
  'ticket.created',
  'ticket.message',
  'feedback.created',
  'product.out_of_stock',
  'customer.balance_changed',
] as const;

export type EventType = (typeof eventTypes)[number];

/**
 * Records an event in the caller's transaction, with one webhook delivery per subscribed
 * endpoint (the outbox the webhook worker reads), so an event and its deliveries exist exactly
 * when the change that caused them committed.
 */
export async function recordEvent(db: Kysely<Database>, shopId: number, type: EventType, data: unknown, now = Date.now()): Promise<string> {
  const id = `evt_${randomBytes(16).toString('base64url')}`;
  await db.insertInto('events').values({ id, shop_id: shopId, type, payload: JSON.stringify(data), created_at: now }).execute();
  await fanOut(db, shopId, id, type, now);
  return id;
}

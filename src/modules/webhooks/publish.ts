import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { recordEvent } from '../events/index.js';
import type { EventType } from './event-types.js';
import * as repo from './repository.js';

type Conn = Kysely<Database>;

/**
 * What each event is about, as the field of its data naming the object: an endpoint receives
 * the events of one object in order (service.ts deliverDue). A feedback is about its invoice, so
 * it comes after that invoice's completion. Every type must say (the Record makes a new type
 * without an answer a type error).
 */
const subjectOf: Record<EventType, { kind: string; field: string }> = {
  'invoice.created': { kind: 'invoice', field: 'invoiceId' },
  'invoice.completed': { kind: 'invoice', field: 'invoiceId' },
  'invoice.expired': { kind: 'invoice', field: 'invoiceId' },
  'invoice.replaced': { kind: 'invoice', field: 'invoiceId' },
  'invoice.cancelled': { kind: 'invoice', field: 'invoiceId' },
  'invoice.refunded': { kind: 'invoice', field: 'invoiceId' },
  'invoice.disputed': { kind: 'invoice', field: 'invoiceId' },
  'feedback.created': { kind: 'invoice', field: 'invoiceId' },
  'ticket.created': { kind: 'ticket', field: 'ticketId' },
  'ticket.message': { kind: 'ticket', field: 'ticketId' },
  'product.out_of_stock': { kind: 'product', field: 'productId' },
  'customer.balance_changed': { kind: 'customer', field: 'customerId' },
  'license.activated': { kind: 'license', field: 'licenseId' },
  'license.deactivated': { kind: 'license', field: 'licenseId' },
  'license.revoked': { kind: 'license', field: 'licenseId' },
};

/** `invoice:<id>`, ...; null when the data does not name its object (then it is ordered with everything). */
export function orderingKey(type: EventType, data: unknown): string | null {
  const { kind, field } = subjectOf[type];
  const id = (data as Record<string, unknown> | null)?.[field];
  return typeof id === 'string' || typeof id === 'number' ? `${kind}:${id}` : null;
}

/** The enabled endpoints of the shop subscribed to `type`: where an event of it will be delivered. */
export async function subscribedEndpoints(db: Conn, shopId: number, type: string): Promise<number[]> {
  return (await repo.enabledWebhooks(db, shopId))
    .filter((w) => (JSON.parse(w.events) as string[]).includes(type))
    .map((w) => w.id);
}

/**
 * Publishes an event in the caller's transaction, at the change's time `now`: records it in the
 * event store (the events module) with one webhook delivery per subscribed endpoint (the outbox
 * the webhook worker reads), so an event and its deliveries exist exactly when the change that
 * caused them committed. Answers the event's id. `detail` adds what only a receiver needs (a
 * snapshot of the whole object): it is read, and stored with the event, only when some endpoint
 * will receive it — most events of most shops go nowhere, and a snapshot costs reads inside a
 * checkout's transaction and keeps a copy of the order (delivered goods included) in `events`.
 */
export async function publishEvent(
  db: Conn,
  shopId: number,
  type: EventType,
  data: Record<string, unknown>,
  now: number,
  detail?: () => Promise<Record<string, unknown>>,
): Promise<string> {
  const targets = await subscribedEndpoints(db, shopId, type);
  const payload = detail && targets.length > 0 ? { ...data, ...(await detail()) } : data;
  const id = await recordEvent(db, { shopId, type, data: payload, at: now });
  await repo.insertDeliveries(db, shopId, id, orderingKey(type, data), targets, now);
  return id;
}

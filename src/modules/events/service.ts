import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { findEventRow, insertEvent } from './repository.js';

// The event store: the events of each shop for the owner's systems, as their receivers get them
// (id, type, time, data). It only records and reads them: which endpoints receive an event, and
// its deliveries, are the webhooks module's business, which records every event through this door.

type Conn = Kysely<Database>;

/** An event as recorded. */
export interface StoredEvent {
  /** `evt_` + random. */
  id: string;
  shopId: number;
  type: string;
  createdAt: number;
  /** The event's data, as recorded. */
  data: unknown;
}

/** Records an event of the shop, in the caller's transaction, at the change's time `at`; answers its id. */
export async function recordEvent(
  db: Conn,
  event: { shopId: number; type: string; data: Record<string, unknown>; at: number },
): Promise<string> {
  const id = `evt_${randomBytes(16).toString('base64url')}`;
  await insertEvent(db, {
    id,
    shop_id: event.shopId,
    type: event.type,
    payload: JSON.stringify(event.data),
    created_at: event.at,
  });
  return id;
}

/** One event of the shop; undefined when it has none of that id. */
export async function findEvent(db: Conn, shopId: number, eventId: string): Promise<StoredEvent | undefined> {
  const row = await findEventRow(db, shopId, eventId);
  if (!row) return undefined;
  return {
    id: row.id,
    shopId: row.shop_id,
    type: row.type,
    createdAt: row.created_at,
    data: JSON.parse(row.payload) as unknown,
  };
}

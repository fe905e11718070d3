import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { PaymentEventsTable } from './payments.table.js';

/** The SQL of provider callbacks: each event applied once per shop and provider. */

type Conn = Kysely<Database>;

type EventKey = Pick<PaymentEventsTable, 'shop_id' | 'provider' | 'event_id'>;

/**
 * Claims a provider event for this request: `claimed`; `settled` when it was applied before (a
 * repeat delivery); `in-flight` while another request handles it. A claim older than `staleAfter`
 * ms that was never settled (its process died) is taken over.
 */
export async function claimPaymentEvent(
  db: Conn,
  event: PaymentEventsTable,
  staleAfter: number,
): Promise<'claimed' | 'settled' | 'in-flight'> {
  const inserted = await db
    .insertInto('payment_events')
    .values(event)
    .onConflict((oc) => oc.columns(['shop_id', 'provider', 'event_id']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return 'claimed';
  const taken = await db
    .updateTable('payment_events')
    .set({ created_at: event.created_at })
    .where('shop_id', '=', event.shop_id)
    .where('provider', '=', event.provider)
    .where('event_id', '=', event.event_id)
    .where('outcome', '=', 'handling')
    .where('created_at', '<', event.created_at - staleAfter)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 1) return 'claimed';
  const row = await db
    .selectFrom('payment_events')
    .select('outcome')
    .where('shop_id', '=', event.shop_id)
    .where('provider', '=', event.provider)
    .where('event_id', '=', event.event_id)
    .executeTakeFirst();
  // Gone: released by a failed handling just now; the provider's retry is handled anew.
  return row?.outcome === 'handling' || !row ? 'in-flight' : 'settled';
}

export async function settlePaymentEvent(db: Conn, key: EventKey, outcome: string): Promise<void> {
  await db
    .updateTable('payment_events')
    .set({ outcome })
    .where('shop_id', '=', key.shop_id)
    .where('provider', '=', key.provider)
    .where('event_id', '=', key.event_id)
    .execute();
}

/** How long an applied provider event is kept: well past the providers' retries (Stripe's: 3 days). */
export const PAYMENT_EVENT_RETENTION_MS = 30 * 24 * 60 * 60_000;

/**
 * Deletes the applied provider events older than PAYMENT_EVENT_RETENTION_MS (the hourly sweep):
 * a delivery that old is no longer retried, so its key has nothing left to guard. Claims still
 * `handling` are left to be taken over.
 */
export async function sweepPaymentEvents(db: Conn, now: number): Promise<number> {
  const result = await db
    .deleteFrom('payment_events')
    .where('created_at', '<', now - PAYMENT_EVENT_RETENTION_MS)
    .where('outcome', '!=', 'handling')
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Lets a provider's retry of an event whose handling failed be handled anew. */
export async function releasePaymentEvent(db: Conn, key: EventKey): Promise<void> {
  await db
    .deleteFrom('payment_events')
    .where('shop_id', '=', key.shop_id)
    .where('provider', '=', key.provider)
    .where('event_id', '=', key.event_id)
    .execute();
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type EventType, recordEvent } from '../events/index.js';
import { ownerInvoiceView } from './owner-view.js';
import * as repo from './repository.js';

type InvoiceEventType = Extract<EventType, `invoice.${string}`>;

/**
 * Records an `invoice.*` event in the caller's transaction, after the change it reports. Its
 * data keeps the fields receivers had before (`invoiceId` and the event's own: `total`,
 * `currency`, `gateway`, `commission`, `partInvoiceId`, `quantity`) and, when an endpoint is
 * subscribed to it, adds `invoice`: the invoice exactly as the owner API shows it at that
 * moment, read in the same transaction, so a receiver needs no follow-up call and never sees a
 * later state under an earlier event.
 */
export async function recordInvoiceEvent(
  db: Kysely<Database>,
  shopId: number,
  type: InvoiceEventType,
  invoiceId: string,
  extra: Record<string, unknown>,
  now: number,
): Promise<string> {
  return recordEvent(db, shopId, type, { invoiceId, ...extra }, now, async () => {
    const row = await repo.findInvoice(db, shopId, invoiceId);
    if (!row) throw new Error(`invoice ${invoiceId} of shop ${shopId} vanished inside its own transaction`);
    return { invoice: await ownerInvoiceView(db, row) };
  });
}

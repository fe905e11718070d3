import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from './invoices.table.js';
import * as repo from './repository.js';
import { toOwnerInvoice } from './views.js';

/**
 * An invoice as the owner API shows it (GET /self/{shopId}/invoices/{invoiceId}), read through
 * `db`: the owner routes, and the `invoice.*` webhook events that snapshot it in the
 * transaction of the change, share this one reading.
 */
export async function ownerInvoiceView(db: Kysely<Database>, invoice: InvoiceRow) {
  const [parts, replacements, feedbacks] = await Promise.all([
    repo.listParts(db, invoice.shop_id, [invoice.id]),
    repo.listReplacements(db, invoice.shop_id, [invoice.id]),
    repo.feedbacksOfInvoices(db, invoice.shop_id, [invoice.id]),
  ]);
  return toOwnerInvoice(invoice, parts, replacements, feedbacks[0]);
}

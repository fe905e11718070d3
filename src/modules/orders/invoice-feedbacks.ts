import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Conn = Kysely<Database>;

/** What an invoice's owner view shows of the feedback left on it (at most one per invoice). */
export interface InvoiceFeedback {
  id: number;
  invoiceId: string;
  rating: number;
  comment: string | null;
  answer: string | null;
  createdAt: number;
}

/**
 * Reads the feedbacks left on these invoices of the shop, through `db` (inside a transaction,
 * the transaction: an `invoice.*` webhook snapshots the owner view in the change's own).
 */
export type InvoiceFeedbacksReader = (db: Conn, shopId: number, invoiceIds: string[]) => Promise<InvoiceFeedback[]>;

let reader: InvoiceFeedbacksReader | undefined;

/**
 * The feedbacks module owns the feedbacks and builds on this module (a feedback is left on a
 * completed invoice), so the owner's invoice views cannot import it: it implements the reader and
 * the composition root gives it here (src/subscribers.ts, with the domain events' subscribers,
 * once per process, for the server and the CLI alike).
 */
export function readInvoiceFeedbacksWith(feedbacks: InvoiceFeedbacksReader): void {
  reader = feedbacks;
}

/** The feedbacks left on these invoices (the owner's invoice views). */
export async function feedbacksOfInvoices(db: Conn, shopId: number, invoiceIds: string[]): Promise<InvoiceFeedback[]> {
  if (invoiceIds.length === 0) return [];
  if (!reader) throw new Error('no reader of invoice feedbacks: src/subscribers.ts wires the feedbacks module');
  return reader(db, shopId, invoiceIds);
}

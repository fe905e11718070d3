import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Conn = Kysely<Database>;

/** What an invoice's owner view shows of a payment dispute on it (schema.ts `OwnerInvoice.dispute`), with its invoice. */
export interface InvoiceDispute {
  id: number;
  invoiceId: string;
  providerDisputeId: string;
  status: 'needs_response' | 'under_review' | 'won' | 'lost';
  reason: string;
  amount: number | null;
  currency: string;
  createdAt: string;
  updatedAt: string;
  evidenceSubmittedAt: string | null;
}

/** The disputes module as the orders module sees it: the disputes of invoices, and where views of an invoice are kept. */
export interface InvoiceDisputesPort {
  disputesOf(db: Conn, shopId: number, invoiceIds: string[]): Promise<InvoiceDispute[]>;
  recordView(
    db: Conn,
    shopId: number,
    invoiceId: string,
    client: { ip: string | null; userAgent: string | null },
    at: number,
  ): Promise<void>;
}

let port: InvoiceDisputesPort | undefined;

/**
 * The disputes module builds on this one (a dispute finds its order here), so orders cannot
 * import it: the composition root gives its port here (src/subscribers.ts), as for feedbacks.
 */
export function invoiceDisputesWith(disputes: InvoiceDisputesPort): void {
  port = disputes;
}

/** The latest dispute of the invoice, or null (the owner's single-invoice view). */
export async function disputeOfInvoice(db: Conn, shopId: number, invoiceId: string): Promise<InvoiceDispute | null> {
  if (!port) throw new Error('no disputes port: src/subscribers.ts wires the disputes module');
  return (await port.disputesOf(db, shopId, [invoiceId]))[0] ?? null;
}

/** Keeps a view of the invoice page by its buyer (evidence should a dispute come). */
export function recordInvoiceView(
  db: Conn,
  shopId: number,
  invoiceId: string,
  client: { ip: string | null; userAgent: string | null },
  at: number,
): Promise<void> {
  if (!port) throw new Error('no disputes port: src/subscribers.ts wires the disputes module');
  return port.recordView(db, shopId, invoiceId, client, at);
}

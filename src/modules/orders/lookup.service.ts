import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import type { InvoiceRow, InvoiceStatus } from './invoices.table.js';
import { withExpiryApplied } from './lifecycle.service.js';
import * as repo from './repository.js';

// What other modules ask about orders, one operation per question, each answering only what its
// caller needs (the rows themselves stay this module's).

type Conn = Kysely<Database>;

/** Whether the shop has this invoice (a ticket may name one). */
export function invoiceExists(db: Conn, shopId: number, invoiceId: string): Promise<boolean> {
  return repo.invoiceExists(db, shopId, invoiceId);
}

/** The distinct products of each of these invoices, in the order of its parts (a feedback is about them). */
export async function productIdsOfInvoices(
  db: Conn,
  shopId: number,
  invoiceIds: string[],
): Promise<Map<string, number[]>> {
  const byInvoice = new Map<string, number[]>();
  for (const part of await repo.listPartProducts(db, shopId, invoiceIds)) {
    const ids = byInvoice.get(part.invoice_id) ?? [];
    if (!ids.includes(part.product_id)) ids.push(part.product_id);
    byInvoice.set(part.invoice_id, ids);
  }
  return byInvoice;
}

/** An invoice as its buyer's link names it: its shop, its customer and its status. */
export interface LinkedInvoice {
  id: string;
  shopId: number;
  customerId: number;
  status: InvoiceStatus;
}

/**
 * The invoice a buyer's link names, by its unguessable id alone (the only key a buyer has), with
 * read-time expiry applied, so an overdue pending one reads as expired. Undefined for an unknown id.
 */
export async function invoiceOfLink(ctx: Context, invoiceId: string): Promise<LinkedInvoice | undefined> {
  const found = await repo.findInvoiceById(ctx.db, invoiceId);
  if (!found) return undefined;
  const invoice = await withExpiryApplied(ctx, found);
  return { id: invoice.id, shopId: invoice.shop_id, customerId: invoice.customer_id, status: invoice.status };
}

/** What an invoice ordered, line by line (a payment page describes the order with it). */
export async function orderedLines(
  db: Conn,
  shopId: number,
  invoiceId: string,
): Promise<{ title: string; quantity: number }[]> {
  const parts = await repo.listParts(db, shopId, [invoiceId]);
  return parts.map((p) => ({ title: p.title, quantity: p.quantity }));
}

/**
 * The terms of service the order was placed under (the shop's at checkout, recorded since
 * migration 0034), or null when none were recorded: a dispute's evidence quotes them.
 */
export function termsOfInvoice(db: Conn, shopId: number, invoiceId: string): Promise<string | null> {
  return repo.termsOfInvoice(db, shopId, invoiceId);
}

/** The invoice a provider's callback is about, as the payment code applies it. */
export type PaidInvoice = Pick<InvoiceRow, 'id' | 'shop_id' | 'status' | 'total' | 'currency'>;

/** The invoice of the shop whose payment the provider names `reference` (the payment record's reference), or undefined. */
export function invoiceOfProviderReference(
  db: Conn,
  shopId: number,
  provider: string,
  reference: string,
): Promise<InvoiceRow | undefined> {
  return repo.findInvoiceByPaymentReference(db, shopId, provider, reference);
}

/**
 * The invoice of the shop a hosted payment was started for: undefined unless the invoice exists,
 * is of that provider and the payment (`ref`) is the one started for it, so a callback naming
 * another shop's invoice, or another payment, finds nothing.
 */
export function invoiceOfPayment(
  db: Conn,
  shopId: number,
  payment: { invoiceId: string; provider: string; ref: string },
): Promise<PaidInvoice | undefined> {
  return repo.findInvoiceOfPayment(db, shopId, payment);
}

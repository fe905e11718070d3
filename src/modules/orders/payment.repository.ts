import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { InvoiceRefundRow, InvoiceRow, InvoiceStatus } from './invoices.table.js';

/** The SQL of an order's payment record: the hosted payment on the invoice, notes for the owner, refunds. */

type Conn = Kysely<Database>;

/** Stores the hosted payment started for a pending invoice, and the expiry it now has. */
export async function setHostedPayment(
  db: Conn,
  shopId: number,
  invoiceId: string,
  payment: { ref: string; url: string; closesAt: number; expiresAt: number; pageEndsAt: number | null },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set({
      payment_ref: payment.ref,
      payment_url: payment.url,
      payment_closes_at: payment.closesAt,
      payment_page_ends_at: payment.pageEndsAt,
      expires_at: payment.expiresAt,
      updated_at: now,
    })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Expired invoices whose provider's page is still open at `now` (payment_page_ends_at), up to
 * `limit`, through the index of that column: the pages to close at the provider.
 */
export function lapsedPages(db: Conn, now: number, limit: number): Promise<InvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('payment_page_ends_at', '>', now)
    .where('status', '=', 'expired')
    .orderBy('payment_page_ends_at')
    .limit(limit)
    .execute();
}

/** Forgets that the invoice's provider page is open (closed, or given up on). */
export async function forgetPage(db: Conn, shopId: number, invoiceId: string): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ payment_page_ends_at: null })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .execute();
}

/**
 * Writes a note for the owner on the invoice; `holdUntil` (a pending invoice only) keeps it from
 * expiring before then, so its stock stays held while the owner decides.
 */
export async function notePayment(
  db: Conn,
  shopId: number,
  invoiceId: string,
  note: string,
  options: {
    /** Only while the invoice has one of these statuses (read before): a completion meanwhile keeps it clean. */
    onlyIf: InvoiceStatus[];
    holdUntil?: number;
    /** The provider confirmed a payment (which delivered nothing yet): its reference, kept for a refund. */
    providerReference?: string;
  },
  now: number,
): Promise<void> {
  const { holdUntil, providerReference } = options;
  await db
    .updateTable('invoices')
    .set((eb) => ({
      payment_note: note,
      updated_at: now,
      ...(providerReference ? { payment_reference: providerReference, payment_source: 'provider' as const } : {}),
      ...(holdUntil === undefined
        ? {}
        : {
            expires_at: eb
              .case()
              .when('status', '=', 'pending')
              .then(sql<number>`case when expires_at > ${holdUntil} then expires_at else ${holdUntil} end`)
              .else(eb.ref('expires_at'))
              .end(),
          }),
    }))
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .where('status', 'in', options.onlyIf)
    .execute();
}

/**
 * Holds `amount` of a completed invoice for a refund: false when that would refund more than
 * its total (another refund took it first) or it is not completed. The conditional update is what
 * keeps two concurrent refunds from giving back more than was paid.
 */
export async function holdRefund(
  db: Conn,
  shopId: number,
  invoiceId: string,
  amount: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set({ refunded: sql`refunded + ${amount}`, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .where('status', '=', 'completed')
    .where(sql<boolean>`refunded + ${amount} <= total`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives a held amount back (the provider refused the refund). */
export async function releaseRefund(
  db: Conn,
  shopId: number,
  invoiceId: string,
  amount: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ refunded: sql`refunded - ${amount}`, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .execute();
}

export async function insertRefund(db: Conn, refund: Omit<InvoiceRefundRow, 'id'>): Promise<number> {
  const row = await db.insertInto('invoice_refunds').values(refund).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Marks a pending refund made: false when another request did so first (it then recorded its effects). */
export async function finishRefund(
  db: Conn,
  shopId: number,
  refundId: number,
  providerRefundId: string | null,
  method: InvoiceRefundRow['method'],
): Promise<boolean> {
  const result = await db
    .updateTable('invoice_refunds')
    .set({ status: 'succeeded', provider_refund_id: providerRefundId, method })
    .where('shop_id', '=', shopId)
    .where('id', '=', refundId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteRefund(db: Conn, shopId: number, refundId: number): Promise<void> {
  await db.deleteFrom('invoice_refunds').where('shop_id', '=', shopId).where('id', '=', refundId).execute();
}

/** The refunds of these invoices, oldest first. */
export async function listRefunds(db: Conn, shopId: number, invoiceIds: string[]): Promise<InvoiceRefundRow[]> {
  if (invoiceIds.length === 0) return [];
  return db
    .selectFrom('invoice_refunds')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
}

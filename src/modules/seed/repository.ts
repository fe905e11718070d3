import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Conn = Kysely<Database>;

/**
 * The only writes the demo seed makes behind the API's back: orders can only be placed "now"
 * through checkout, so their times are moved afterwards to spread them over past days.
 */
export async function moveInvoiceInTime(
  db: Conn,
  shopId: number,
  invoiceId: string,
  times: { createdAt: number; completedAt: number | null; expiresAt?: number | undefined },
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({
      created_at: times.createdAt,
      updated_at: times.completedAt ?? times.createdAt,
      completed_at: times.completedAt,
      ...(times.expiresAt === undefined ? {} : { expires_at: times.expiresAt }),
    })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .execute();
  await db
    .updateTable('invoice_parts')
    .set({ created_at: times.createdAt })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .execute();
  if (times.completedAt !== null) {
    await db
      .updateTable('serials')
      .set({ delivered_at: times.completedAt })
      .where('shop_id', '=', shopId)
      .where('invoice_id', '=', invoiceId)
      .where('status', '=', 'delivered')
      .execute();
  }
}

export async function moveReplacementsInTime(db: Conn, shopId: number, invoiceId: string, at: number): Promise<void> {
  await db
    .updateTable('invoice_replacements')
    .set({ created_at: at })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .execute();
}

export async function moveFeedbackInTime(db: Conn, shopId: number, invoiceId: string, at: number): Promise<void> {
  const moved = await db
    .updateTable('feedbacks')
    .set({ created_at: at, updated_at: at })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .returning('id')
    .execute();
  // feedback_products keeps each feedback's created_at for the product pages' order.
  if (moved.length > 0)
    await db
      .updateTable('feedback_products')
      .set({ created_at: at })
      .where('shop_id', '=', shopId)
      .where(
        'feedback_id',
        'in',
        moved.map((f) => f.id),
      )
      .execute();
}

/** A customer appears with their first order and last bought with their latest completed one. */
export async function alignCustomerDates(db: Conn, shopId: number): Promise<void> {
  await db
    .updateTable('customers')
    .set({
      created_at: sql<number>`coalesce((select min(i.created_at) from invoices i where i.shop_id = ${shopId} and i.customer_id = customers.id), customers.created_at)`,
      last_order_at: sql<
        number | null
      >`(select max(i.completed_at) from invoices i where i.shop_id = ${shopId} and i.customer_id = customers.id and i.status = 'completed')`,
    })
    .where('shop_id', '=', shopId)
    .execute();
}

/**
 * Repeat purchases were decided in the order the seed completed the invoices; once they are
 * moved in time the flags are derived again from the history (by the rollup rebuild).
 */
export async function forgetRepeatPurchases(db: Conn, shopId: number): Promise<void> {
  await db.updateTable('invoices').set({ repeat_purchase: null }).where('shop_id', '=', shopId).execute();
}

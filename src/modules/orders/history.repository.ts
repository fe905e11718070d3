import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

// The SQL of history.service.ts: orders moved to the times they happened, and what is derived
// from the order of a shop's completions.

type Conn = Kysely<Database>;

/** The times an order happened at (history.service.ts, backdateOrder). */
export interface OrderTimes {
  createdAt: number;
  completedAt: number | null;
  expiresAt?: number | undefined;
  replacedAt?: number | undefined;
}

/** A customer's first order and latest completion (null if none). */
export interface CustomerOrderDates {
  customerId: number;
  firstOrderAt: number;
  lastCompletedAt: number | null;
}

/** Moves an invoice, its parts and (given `replacedAt`) its replacements to other times. */
export async function moveOrderInTime(db: Conn, shopId: number, invoiceId: string, times: OrderTimes): Promise<void> {
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
  if (times.replacedAt !== undefined)
    await db
      .updateTable('invoice_replacements')
      .set({ created_at: times.replacedAt })
      .where('shop_id', '=', shopId)
      .where('invoice_id', '=', invoiceId)
      .execute();
}

/** Per customer of the shop who ordered: their first order's creation and their latest completion (null if none). */
export async function customerOrderDates(db: Conn, shopId: number): Promise<CustomerOrderDates[]> {
  const rows = await db
    .selectFrom('invoices')
    .select((eb) => [
      'customer_id',
      eb.fn.min<number>('created_at').as('first_order_at'),
      eb.fn
        .max<number | null>(eb.case().when('status', '=', 'completed').then(eb.ref('completed_at')).end())
        .as('last_completed_at'),
    ])
    .where('shop_id', '=', shopId)
    .groupBy('customer_id')
    .orderBy('customer_id')
    .execute();
  return rows.map((r) => ({
    customerId: r.customer_id,
    firstOrderAt: Number(r.first_order_at),
    lastCompletedAt: r.last_completed_at === null ? null : Number(r.last_completed_at),
  }));
}

/** Whether a completed invoice of the shop has no repeat-purchase flag. */
export async function hasUnflaggedCompletions(db: Conn, shopId: number): Promise<boolean> {
  const row = await db
    .selectFrom('invoices')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('status', '=', 'completed')
    .where('repeat_purchase', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Sets the repeat-purchase flags of the shop's completed invoices (those without one, or all)
 * from the order history: every completed invoice of a customer but the first (by completion
 * time, then id) is a repeat. One sort of the shop's completed invoices, not a lookup per invoice.
 */
export async function setRepeatPurchasesFromHistory(db: Conn, shopId: number, onlyUnflagged: boolean): Promise<void> {
  const ranked = db
    .selectFrom('invoices')
    .select([
      'id',
      sql<number>`case when row_number() over (partition by customer_id order by completed_at, id) > 1 then 1 else 0 end`.as(
        'repeat',
      ),
    ])
    .where('shop_id', '=', shopId)
    .where('status', '=', 'completed')
    .as('r');
  await db
    .updateTable('invoices')
    .from(ranked)
    .set((eb) => ({ repeat_purchase: eb.ref('r.repeat') }))
    .whereRef('invoices.id', '=', 'r.id')
    .where('invoices.shop_id', '=', shopId)
    .$if(onlyUnflagged, (q) => q.where('invoices.repeat_purchase', 'is', null))
    .execute();
}

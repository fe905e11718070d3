import { type Expression, type Insertable, type Kysely, sql } from 'kysely';
import { heavyRead } from '../../db/reader.js';
import type { Database } from '../../db/schema.js';
import { searchText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type {
  InvoicePartRow,
  InvoicePartsTable,
  InvoiceReplacementRow,
  InvoiceRow,
  InvoiceStatus,
  InvoicesTable,
  PaymentSource,
} from './invoices.table.js';
import { parsePaymentCode } from './payment-code.js';

type Conn = Kysely<Database>;

export function findInvoice(db: Conn, shopId: number, invoiceId: string): Promise<InvoiceRow | undefined> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .executeTakeFirst();
}

/** For public invoice pages, where the unguessable id is the only key a customer has. */
export function findInvoiceById(db: Conn, invoiceId: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('id', '=', invoiceId).executeTakeFirst();
}

/**
 * An invoice's status and expiry by its unguessable id, if it is of the shop `shopId` names (the
 * shops module's subquery of the shop at an address): the one read of the invoice page's status
 * poll (a primary-key lookup of two columns).
 */
export function findInvoiceStatus(
  db: Conn,
  invoiceId: string,
  shopId: Expression<number>,
): Promise<Pick<InvoiceRow, 'status' | 'expires_at'> | undefined> {
  return db
    .selectFrom('invoices')
    .select(['status', 'expires_at'])
    .where('id', '=', invoiceId)
    .where('shop_id', '=', shopId)
    .executeTakeFirst();
}

export function insertInvoice(db: Conn, row: Insertable<InvoicesTable>): Promise<InvoiceRow> {
  return db.insertInto('invoices').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Keeps this version of the shop's terms (once: a version already kept is left as it is). */
export async function keepTerms(db: Conn, shopId: number, hash: string, terms: string, now: number): Promise<void> {
  await db
    .insertInto('invoice_terms')
    .values({ shop_id: shopId, hash, terms, created_at: now })
    .onConflict((oc) => oc.columns(['shop_id', 'hash']).doNothing())
    .execute();
}

/** The terms of service the invoice was placed under, when they were recorded (migration 0034). */
export async function termsOfInvoice(db: Conn, shopId: number, invoiceId: string): Promise<string | null> {
  const row = await db
    .selectFrom('invoices as i')
    .innerJoin('invoice_terms as t', (join) =>
      join.onRef('t.shop_id', '=', 'i.shop_id').onRef('t.hash', '=', 'i.terms_hash'),
    )
    .select('t.terms')
    .where('i.shop_id', '=', shopId)
    .where('i.id', '=', invoiceId)
    .executeTakeFirst();
  return row?.terms ?? null;
}

export function insertPart(db: Conn, row: Insertable<InvoicePartsTable>): Promise<InvoicePartRow> {
  return db.insertInto('invoice_parts').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The parts of these invoices. */
export function listParts(db: Conn, shopId: number, invoiceIds: string[]): Promise<InvoicePartRow[]> {
  if (invoiceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('invoice_parts')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
}

/** Whether the shop has this invoice (a primary-key lookup of one column). */
export async function invoiceExists(db: Conn, shopId: number, invoiceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('invoices')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The product of each part of these invoices, in the order of the parts. */
export function listPartProducts(
  db: Conn,
  shopId: number,
  invoiceIds: string[],
): Promise<Pick<InvoicePartRow, 'invoice_id' | 'product_id'>[]> {
  if (invoiceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('invoice_parts')
    .select(['invoice_id', 'product_id'])
    .where('shop_id', '=', shopId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
}

/** The invoice a hosted payment was started for: only if that payment (provider and ref) is the invoice's. */
export function findInvoiceOfPayment(
  db: Conn,
  shopId: number,
  payment: { invoiceId: string; provider: string; ref: string },
): Promise<Pick<InvoiceRow, 'id' | 'shop_id' | 'status' | 'total' | 'currency'> | undefined> {
  return db
    .selectFrom('invoices')
    .select(['id', 'shop_id', 'status', 'total', 'currency'])
    .where('shop_id', '=', shopId)
    .where('id', '=', payment.invoiceId)
    .where('gateway', '=', payment.provider)
    .where('payment_ref', '=', payment.ref)
    .executeTakeFirst();
}

/** The invoice the provider's payment `reference` (a Stripe PaymentIntent) paid: how a dispute finds its order. */
export function findInvoiceByPaymentReference(
  db: Conn,
  shopId: number,
  provider: string,
  reference: string,
): Promise<InvoiceRow | undefined> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('gateway', '=', provider)
    .where('payment_source', '=', 'provider')
    .where('payment_reference', '=', reference)
    .executeTakeFirst();
}

export function listReplacements(db: Conn, shopId: number, invoiceIds: string[]): Promise<InvoiceReplacementRow[]> {
  if (invoiceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('invoice_replacements')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
}

export async function setPartDeliverables(
  db: Conn,
  shopId: number,
  partId: number,
  deliverables: string[],
): Promise<void> {
  await db
    .updateTable('invoice_parts')
    .set({ deliverables: JSON.stringify(deliverables) })
    .where('shop_id', '=', shopId)
    .where('id', '=', partId)
    .execute();
}

export async function insertReplacement(
  db: Conn,
  row: { shopId: number; invoiceId: string; partId: number; quantity: number; deliverables: string[]; now: number },
): Promise<void> {
  await db
    .insertInto('invoice_replacements')
    .values({
      shop_id: row.shopId,
      invoice_id: row.invoiceId,
      part_id: row.partId,
      quantity: row.quantity,
      deliverables: JSON.stringify(row.deliverables),
      created_at: row.now,
    })
    .execute();
}

/**
 * Moves an invoice from `from` to `to` only if it is still in `from` (and, for completion,
 * not past its expiry): the single conditional write that makes concurrent completions,
 * expiries and retries safe. Answers the invoice as moved (read by the write itself), or
 * undefined when another writer got there first.
 */
export async function moveStatus(
  db: Conn,
  shopId: number,
  invoiceId: string,
  from: InvoiceStatus,
  to: InvoiceStatus,
  now: number,
  extra: {
    notExpiredAt?: number;
    commission?: number;
    paymentReference?: string | null;
    paymentSource?: PaymentSource;
  } = {},
): Promise<InvoiceRow | undefined> {
  let query = db
    .updateTable('invoices')
    .set({
      status: to,
      updated_at: now,
      // A completed order has nothing left for the owner to look at: a note of a held payment is history.
      ...(to === 'completed' ? { completed_at: now, delivery_error: null, payment_note: null } : {}),
      ...(extra.commission === undefined ? {} : { commission: extra.commission }),
      // What a provider's callback recorded before (a payment whose delivery failed) is kept.
      ...(extra.paymentReference == null
        ? {}
        : { payment_reference: sql<string>`coalesce(payment_reference, ${extra.paymentReference})` }),
      ...(extra.paymentSource === undefined
        ? {}
        : { payment_source: sql<PaymentSource>`coalesce(payment_source, ${extra.paymentSource})` }),
    })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .where('status', '=', from);
  if (extra.notExpiredAt !== undefined) query = query.where('expires_at', '>', extra.notExpiredAt);
  return query.returningAll().executeTakeFirst();
}

/**
 * Decides, in the completion transaction (after the customer's row is locked by their totals
 * update, so two completions of one customer cannot both count as a first), whether the
 * customer had completed another invoice before this one, and stores it. Answers the flag.
 */
export async function markRepeatPurchase(
  db: Conn,
  shopId: number,
  invoiceId: string,
  customerId: number,
): Promise<boolean> {
  const row = await db
    .updateTable('invoices')
    .set((eb) => ({
      repeat_purchase: eb
        .case()
        .when(
          eb.exists(
            eb
              .selectFrom('invoices as j')
              .select(sql.lit(1).as('one'))
              .where('j.shop_id', '=', shopId)
              .where('j.customer_id', '=', customerId)
              .where('j.status', '=', 'completed')
              .where('j.id', '<>', invoiceId),
          ),
        )
        .then(1)
        .else(0)
        .end(),
    }))
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .returning('repeat_purchase')
    .executeTakeFirstOrThrow();
  return row.repeat_purchase === 1;
}

export async function setCommission(db: Conn, shopId: number, invoiceId: string, commission: number): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ commission })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .execute();
}

export async function setDeliveryError(
  db: Conn,
  shopId: number,
  invoiceId: string,
  error: string | null,
  now: number,
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ delivery_error: error, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .execute();
}

/**
 * Pending invoices past their expiry, oldest first (for the expiry worker and read-time checks).
 * Every read of a shop's invoices (the owner's list, dashboards) and every checkout asks this
 * first for its shop (expireOverdue).
 */
export function overdueInvoices(
  db: Conn,
  now: number,
  limit: number,
  shopId?: number,
): Promise<{ id: string; shop_id: number }[]> {
  return db
    .selectFrom('invoices')
    .select(['id', 'shop_id'])
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .$if(shopId !== undefined, (q) => q.where('shop_id', '=', shopId!))
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Pending invoices, of every shop, whose reminder to pay is due and which have not expired (payment-reminders.ts). */
export function dueReminders(db: Conn, now: number, limit: number): Promise<{ id: string; shop_id: number }[]> {
  return db
    .selectFrom('invoices')
    .select(['id', 'shop_id'])
    .where('status', '=', 'pending')
    .where('remind_at', '<=', now)
    .where('expires_at', '>', now)
    .orderBy('remind_at')
    .limit(limit)
    .execute();
}

/** Takes the reminder of a pending invoice for sending now: false when it is not due, or another writer took it or ended the order. */
export async function claimReminder(db: Conn, shopId: number, invoiceId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set({ remind_at: null, reminded_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', invoiceId)
    .where('status', '=', 'pending')
    .where('remind_at', '<=', now)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export interface InvoiceFilter {
  status?: InvoiceStatus | undefined;
  gateway?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  search?: string | undefined;
  customerId?: number | undefined;
  productId?: number | undefined;
}

function filtered(db: Conn, shopId: number, f: InvoiceFilter) {
  let query = db.selectFrom('invoices').where('invoices.shop_id', '=', shopId);
  if (f.status) query = query.where('invoices.status', '=', f.status);
  if (f.gateway) query = query.where('invoices.gateway', '=', f.gateway);
  if (f.from !== undefined) query = query.where('invoices.created_at', '>=', f.from);
  if (f.to !== undefined) query = query.where('invoices.created_at', '<=', f.to);
  if (f.customerId !== undefined) query = query.where('invoices.customer_id', '=', f.customerId);
  if (f.search) {
    const text = searchText(db, 'invoices', 'invoices', ['id', 'customer_email'], f.search);
    // A payment reference as the buyer quoted it (`k7q2-m9xd`): an exact match on the unique (shop_id, payment_code).
    const code = parsePaymentCode(f.search);
    query = query.where((eb) => (code ? eb.or([text, eb('invoices.payment_code', '=', code)]) : text));
  }
  if (f.productId !== undefined) {
    const productId = f.productId;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('invoice_parts as p')
          .select('p.id')
          .whereRef('p.invoice_id', '=', 'invoices.id')
          .where('p.shop_id', '=', shopId)
          .where('p.product_id', '=', productId),
      ),
    );
  }
  return query;
}

export type InvoiceOrder = { column: 'created_at' | 'total'; direction: 'asc' | 'desc' };
const newestFirst: InvoiceOrder = { column: 'created_at', direction: 'desc' };

/**
 * The filter to apply after a cursor of a creation-date order: the date bound on the cursor's
 * side is dropped when the cursor lies within it. The keyset condition `(created_at, id) < (cursor)`
 * (`>` ascending) alone bounds the index range scan; a `toDate` later than the cursor kept beside
 * it leads SQLite's planner, which has no statistics, to a (shop_id, created_at) index that
 * ignores status and gateway. Other orders keep every bound.
 */
function boundedByCursor(filter: InvoiceFilter, order: InvoiceOrder, after: KeysetPosition | undefined): InvoiceFilter {
  if (!after || order.column !== 'created_at' || typeof after.value !== 'number') return filter;
  if (order.direction === 'desc' && filter.to !== undefined && after.value <= filter.to)
    return { ...filter, to: undefined };
  if (order.direction === 'asc' && filter.from !== undefined && after.value >= filter.from)
    return { ...filter, from: undefined };
  return filter;
}

/** One page in the given order (newest first by default), the invoice id breaking ties in the same direction. */
export function listInvoices(
  db: Conn,
  shopId: number,
  filter: InvoiceFilter,
  page: { order?: InvoiceOrder; limit: number; offset: number; after?: KeysetPosition | undefined },
): Promise<InvoiceRow[]> {
  const order = page.order ?? newestFirst;
  const { column, direction } = order;
  const query = pageOf(
    filtered(db, shopId, boundedByCursor(filter, order, page.after)).selectAll('invoices'),
    { sortColumn: `invoices.${column}`, idColumn: 'invoices.id', direction },
    page,
  );
  // A search may scan or count every invoice of the shop: off the event loop (db/reader.ts).
  return filter.search ? heavyRead(db, query) : query.execute();
}

/** Invoices matching the filter, counted through the indexes the filter's conditions use. */
export async function countInvoices(db: Conn, shopId: number, filter: InvoiceFilter): Promise<number> {
  const query = filtered(db, shopId, filter).select((eb) => eb.fn.countAll<number>().as('n'));
  const [row] = filter.search ? await heavyRead(db, query) : await query.execute();
  return Number(row!.n);
}

import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import { heavyRead } from '../../db/reader.js';
import type { Database } from '../../db/schema.js';
import { searchText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type { BalanceEntryKind, CustomerRow } from './customers.table.js';

type Conn = Kysely<Database>;

export function findCustomer(db: Conn, shopId: number, customerId: number): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', customerId)
    .executeTakeFirst();
}

export function findCustomerByEmail(db: Conn, shopId: number, email: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('email', '=', email)
    .executeTakeFirst();
}

export function findCustomerByReferralCode(db: Conn, shopId: number, code: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('referral_code', '=', code)
    .executeTakeFirst();
}

/**
 * Inserts the customer unless one with this e-mail exists (a concurrent checkout may win the
 * race): the new row, or undefined when it existed.
 */
export function insertCustomerIfAbsent(
  db: Conn,
  shopId: number,
  email: string,
  now: number,
): Promise<CustomerRow | undefined> {
  return db
    .insertInto('customers')
    .values({
      shop_id: shopId,
      email,
      referral_code: randomBytes(6).toString('base64url'),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['shop_id', 'email']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export interface CustomerFilter {
  search?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

function filtered(db: Conn, shopId: number, filter: CustomerFilter) {
  let query = db.selectFrom('customers').where('shop_id', '=', shopId);
  if (filter.search) query = query.where(searchText(db, 'customers', 'customers', ['email'], filter.search));
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<=', filter.to);
  return query;
}

export type CustomerOrder = { column: 'created_at' | 'email' | 'balance'; direction: 'asc' | 'desc' };

/** One page in the given order, the id breaking ties in the same direction. */
export function listCustomers(
  db: Conn,
  shopId: number,
  filter: CustomerFilter,
  page: { order: CustomerOrder; limit: number; offset: number; after?: KeysetPosition | undefined },
): Promise<CustomerRow[]> {
  const { column, direction } = page.order;
  const query = pageOf(
    filtered(db, shopId, filter).selectAll(),
    { sortColumn: column, idColumn: 'id', direction },
    page,
  );
  // A search may scan or count every customer: off the event loop (db/reader.ts).
  return filter.search ? heavyRead(db, query) : query.execute();
}

export async function countCustomers(db: Conn, shopId: number, filter: CustomerFilter): Promise<number> {
  const query = filtered(db, shopId, filter).select((eb) => eb.fn.countAll<number>().as('n'));
  const [row] = filter.search ? await heavyRead(db, query) : await query.execute();
  return Number(row!.n);
}

/**
 * Adds `delta` (signed minor units) to a balance in one conditional statement, so concurrent
 * changes never lose an update and a balance never goes below zero. Undefined when the customer
 * does not exist or the balance would go negative.
 */
export async function adjustBalance(
  db: Conn,
  shopId: number,
  customerId: number,
  delta: number,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .updateTable('customers')
    .set({ balance: sql`balance + ${delta}`, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', customerId)
    .where(sql<boolean>`balance + ${delta} >= 0`)
    .returning('balance')
    .executeTakeFirst();
  return row?.balance;
}

export async function insertBalanceEntry(
  db: Conn,
  entry: {
    shopId: number;
    customerId: number;
    amount: number;
    balanceAfter: number;
    kind: BalanceEntryKind;
    note: string | null;
    invoiceId: string | null;
    now: number;
  },
): Promise<void> {
  await db
    .insertInto('balance_entries')
    .values({
      shop_id: entry.shopId,
      customer_id: entry.customerId,
      amount: entry.amount,
      balance_after: entry.balanceAfter,
      kind: entry.kind,
      note: entry.note,
      invoice_id: entry.invoiceId,
      created_at: entry.now,
    })
    .execute();
}

/** Counts an IP for the customer: first/last seen and how often. */
export async function recordCustomerIp(
  db: Conn,
  shopId: number,
  customerId: number,
  ip: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('customer_ips')
    .values({ shop_id: shopId, customer_id: customerId, ip, first_seen_at: now, last_seen_at: now })
    .onConflict((oc) =>
      oc.columns(['customer_id', 'ip']).doUpdateSet({ last_seen_at: now, count: sql`customer_ips.count + 1` }),
    )
    .execute();
}

export function listCustomerIps(db: Conn, shopId: number, customerId: number, page: { limit: number; offset: number }) {
  return db
    .selectFrom('customer_ips')
    .select(['ip', 'first_seen_at', 'last_seen_at', 'count'])
    .where('shop_id', '=', shopId)
    .where('customer_id', '=', customerId)
    .orderBy('last_seen_at', 'desc')
    .orderBy('ip')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countCustomerIps(db: Conn, shopId: number, customerId: number): Promise<number> {
  const row = await db
    .selectFrom('customer_ips')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId)
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Locks these customers' rows in id order for the rest of the transaction (PostgreSQL; SQLite
 * transactions are serial). A completion changes its buyer and then credits the referrer; two
 * completions whose buyer and referrer are swapped would otherwise each hold one and wait.
 */
export async function lockCustomers(db: Conn, shopId: number, customerIds: number[]): Promise<void> {
  if (isPostgres(db))
    await db
      .selectFrom('customers')
      .select('id')
      .where('shop_id', '=', shopId)
      .where('id', 'in', customerIds)
      .orderBy('id')
      .forUpdate()
      .execute();
}

/** How many customers of the shop have completed an order. */
export async function countBuyers(db: Conn, shopId: number): Promise<number> {
  const row = await db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId)
    .where('orders_count', '>', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** After a completed order: lifetime totals of the buyer. */
export async function recordPurchase(
  db: Conn,
  shopId: number,
  customerId: number,
  total: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('customers')
    .set({
      total_spent: sql`total_spent + ${total}`,
      orders_count: sql`orders_count + 1`,
      last_order_at: now,
      updated_at: now,
    })
    .where('shop_id', '=', shopId)
    .where('id', '=', customerId)
    .execute();
}

/** A refund of `amount` on one of the customer's orders: their lifetime spend counts what they kept paying. */
export async function recordRefund(db: Conn, shopId: number, customerId: number, amount: number, now: number) {
  await db
    .updateTable('customers')
    .set({ total_spent: sql`total_spent - ${amount}`, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', customerId)
    .execute();
}

/**
 * Re-expresses balances and lifetime totals after a currency change: times 10^shift, or
 * divided by 10^-shift rounding half up (integer arithmetic on both engines).
 */
export async function rescaleMoney(db: Conn, shopId: number, shift: number): Promise<void> {
  // Literals, not parameters: better-sqlite3 binds numbers as REAL, which would turn the
  // integer division below into a fractional one.
  const scale = sql.lit(10 ** Math.abs(shift));
  const half = sql.lit(10 ** Math.abs(shift) / 2);
  const rescale = (column: 'balance' | 'total_spent') =>
    shift >= 0 ? sql<number>`${sql.ref(column)} * ${scale}` : sql<number>`(${sql.ref(column)} + ${half}) / ${scale}`;
  await db
    .updateTable('customers')
    .set({ balance: rescale('balance'), total_spent: rescale('total_spent') })
    .where('shop_id', '=', shopId)
    .execute();
}

export async function setReferralDisabled(
  db: Conn,
  shopId: number,
  customerId: number,
  now: number,
): Promise<CustomerRow | undefined> {
  return db
    .updateTable('customers')
    .set({ referral_disabled: 1, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', customerId)
    .returningAll()
    .executeTakeFirst();
}

/** The shop's customers now, their balances, and how many were created in the range. */
export async function customerTotals(db: Conn, shopId: number, range: { from: number; to: number }) {
  const totals = await db
    .selectFrom('customers')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.coalesce(eb.fn.sum<number>('balance'), eb.val(0)).as('balance'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(eb.and([eb('created_at', '>=', range.from), eb('created_at', '<=', range.to)]))
            .then(1)
            .else(0)
            .end(),
        )
        .as('new_customers'),
    ])
    .where('shop_id', '=', shopId)
    .executeTakeFirstOrThrow();
  return {
    total: Number(totals.total),
    newCustomers: Number(totals.new_customers ?? 0),
    balance: Number(totals.balance),
  };
}

/** Sets when a customer appeared and last bought (imported or demo history, see service.ts). */
export async function setCustomerDates(
  db: Conn,
  shopId: number,
  customerId: number,
  dates: { createdAt: number; lastOrderAt: number | null },
): Promise<void> {
  await db
    .updateTable('customers')
    .set({ created_at: dates.createdAt, last_order_at: dates.lastOrderAt })
    .where('shop_id', '=', shopId)
    .where('id', '=', customerId)
    .execute();
}

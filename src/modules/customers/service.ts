import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { NotFoundError, UnprocessableError } from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import { type PageQuery, toIso } from '../../schemas/common.js';
import { currencyDigits } from '../../schemas/currencies.js';
import { parseDateRange } from '../../schemas/dates.js';
import { fromMinorUnits, toMinorUnits } from '../../schemas/money.js';
import { shopClock } from '../../shared/shop-clock.js';
import { buyersOfRange } from '../rollups/index.js';
import type { ShopRow } from '../shops/index.js';
import { shareShop, shopCurrency } from '../shops/index.js';
import { publishEvent } from '../webhooks/index.js';
import type { BalanceEntryKind, CustomerRow } from './customers.table.js';
import * as repo from './repository.js';
import type { CustomerListQuery } from './schema.js';

type Conn = Kysely<Database>;

/** A debit larger than the balance (422): callers that must undo other work catch it by type. */
export class InsufficientBalanceError extends UnprocessableError {
  constructor() {
    super('The balance is too low for this.', ['amount: exceeds the balance']);
  }
}

export function toCustomer(c: CustomerRow, currency: string) {
  return {
    id: c.id,
    email: c.email,
    balance: fromMinorUnits(c.balance, currency),
    totalSpent: fromMinorUnits(c.total_spent, currency),
    currency,
    ordersCount: c.orders_count,
    referralCode: c.referral_code,
    referralDisabled: c.referral_disabled === 1,
    createdAt: toIso(c.created_at),
    lastOrderAt: toIso(c.last_order_at),
  };
}

export async function requireCustomer(db: Conn, shopId: number, customerId: number): Promise<CustomerRow> {
  const customer = await repo.findCustomer(db, shopId, customerId);
  if (!customer) throw new NotFoundError('Customer');
  return customer;
}

/** The shop's customer with this e-mail, created on first sight (per shop, race-safe); `isNew` when created here. */
export async function customerForEmail(
  db: Conn,
  shopId: number,
  email: string,
  now: number,
): Promise<CustomerRow & { isNew: boolean }> {
  const normalised = email.trim().toLowerCase();
  const existing = await repo.findCustomerByEmail(db, shopId, normalised);
  if (existing) return { ...existing, isNew: false };
  const inserted = await repo.insertCustomerIfAbsent(db, shopId, normalised, now);
  if (inserted) return { ...inserted, isNew: true };
  return { ...(await repo.findCustomerByEmail(db, shopId, normalised))!, isNew: false };
}

/**
 * A buyer of the shop by e-mail (as stored: trimmed, lower case): their customer id and store
 * balance in minor units; undefined before their first order made them a customer.
 */
export async function buyerBalance(
  ctx: Context,
  shopId: number,
  email: string,
): Promise<{ customerId: number; balance: number } | undefined> {
  const customer = await repo.findCustomerByEmail(ctx.db, shopId, email);
  return customer && { customerId: customer.id, balance: customer.balance };
}

/**
 * The customer an order's referral code credits, by id, read in the checkout's transaction:
 * undefined for an unknown or disabled code and for the buyer's own.
 */
export async function referrerOfCode(
  db: Conn,
  shopId: number,
  code: string,
  buyerId: number,
): Promise<number | undefined> {
  const referrer = await repo.findCustomerByReferralCode(db, shopId, code);
  return referrer && referrer.referral_disabled === 0 && referrer.id !== buyerId ? referrer.id : undefined;
}

/**
 * Whether the referrer of an order still earns its commission when it completes: not when the
 * owner has disabled their referrals since (or the customer is gone).
 */
export async function earnsCommission(db: Conn, shopId: number, referrerId: number): Promise<boolean> {
  const referrer = await repo.findCustomer(db, shopId, referrerId);
  return referrer !== undefined && referrer.referral_disabled === 0;
}

/** No commission from this customer's referrals from now on (the affiliates' switch); 404 when unknown. */
export async function disableReferrals(ctx: Context, shop: ShopRow, customerId: number) {
  const customer = await repo.setReferralDisabled(ctx.db, shop.id, customerId, ctx.clock.now());
  if (!customer) throw new NotFoundError('Customer');
  return toCustomer(customer, shop.currency);
}

/** How many of the shop's customers have completed an order: its buyers (the storefront's totals, rebuilt). */
export function countBuyers(db: Conn, shopId: number): Promise<number> {
  return repo.countBuyers(db, shopId);
}

// The writes below are steps of other modules' transactions (checkout, completion, currency
// change): `db` is that transaction and `now` its time, and each comes where that transaction's
// lock order puts it (docs/internals.md, "Lock order on PostgreSQL").

/**
 * Locks these customers' rows in id order for the rest of the transaction (PostgreSQL; SQLite
 * transactions are serial). A completion changes its buyer and then credits the referrer; two
 * completions whose buyer and referrer are swapped would otherwise each hold one and wait.
 */
export function lockCustomers(db: Conn, shopId: number, customerIds: number[]): Promise<void> {
  return repo.lockCustomers(db, shopId, customerIds);
}

/** Counts an IP the customer ordered from: first and last seen, and how often. */
export function recordCustomerIp(db: Conn, shopId: number, customerId: number, ip: string, now: number) {
  return repo.recordCustomerIp(db, shopId, customerId, ip, now);
}

/** A completed order of `total` minor units counts in the buyer's lifetime totals (spend, orders, last order). */
export function recordPurchase(db: Conn, shopId: number, customerId: number, total: number, now: number) {
  return repo.recordPurchase(db, shopId, customerId, total, now);
}

/**
 * Re-expresses the shop's customer balances and lifetime totals in a new currency: they keep
 * their major-unit numbers (rounded half up when the new currency has fewer digits).
 */
export function rescaleCustomerMoney(db: Conn, shopId: number, fromCurrency: string, toCurrency: string) {
  return repo.rescaleMoney(db, shopId, currencyDigits(toCurrency) - currencyDigits(fromCurrency));
}

/**
 * Moves a balance by `delta` minor units and writes the ledger row, in the caller's
 * transaction and at its time `now`. A debit larger than the balance is a 422 and changes nothing.
 */
export async function changeBalance(
  db: Conn,
  shopId: number,
  customerId: number,
  change: { delta: number; kind: BalanceEntryKind; note?: string | null; invoiceId?: string | null },
  now: number,
): Promise<number> {
  // The shop before the customer row (the lock order of shops/repository.ts): the ledger row's
  // insert takes the shop's key share, which must not be asked for while holding the customer,
  // behind an owner's queued lock of the shop.
  await shareShop(db, shopId);
  const balance = await repo.adjustBalance(db, shopId, customerId, change.delta, now);
  if (balance === undefined) {
    await requireCustomer(db, shopId, customerId);
    throw new InsufficientBalanceError();
  }
  await repo.insertBalanceEntry(db, {
    shopId,
    customerId,
    amount: change.delta,
    balanceAfter: balance,
    kind: change.kind,
    note: change.note ?? null,
    invoiceId: change.invoiceId ?? null,
    now,
  });
  const currency = await shopCurrency(db, shopId);
  await publishEvent(
    db,
    shopId,
    'customer.balance_changed',
    {
      customerId,
      amount: fromMinorUnits(change.delta, currency),
      balance: fromMinorUnits(balance, currency),
      currency,
      kind: change.kind,
      invoiceId: change.invoiceId ?? null,
    },
    now,
  );
  return balance;
}

/** Owner credit (`add`) or debit (`remove`); answers the new balance. */
export async function moveBalance(
  ctx: Context,
  shop: ShopRow,
  customerId: number,
  direction: 'add' | 'remove',
  input: { amount: number; note?: string | null | undefined },
) {
  const minor = toMinorUnits(input.amount, shop.currency, 'amount');
  const delta = direction === 'add' ? minor : -minor;
  const balance = await ctx.db.transaction().execute(async (trx) => {
    await recordIdempotentWork(trx, customerId);
    return changeBalance(
      trx,
      shop.id,
      customerId,
      { delta, kind: direction === 'add' ? 'credit' : 'debit', note: input.note ?? null },
      ctx.clock.now(),
    );
  });
  return { customerId, balance: fromMinorUnits(balance, shop.currency), currency: shop.currency };
}

export async function getCustomer(ctx: Context, shop: ShopRow, customerId: number) {
  return toCustomer(await requireCustomer(ctx.db, shop.id, customerId), shop.currency);
}

const orders = {
  createdAt: { column: 'created_at', direction: 'asc' },
  '-createdAt': { column: 'created_at', direction: 'desc' },
  email: { column: 'email', direction: 'asc' },
  '-email': { column: 'email', direction: 'desc' },
  balance: { column: 'balance', direction: 'asc' },
  '-balance': { column: 'balance', direction: 'desc' },
} as const satisfies Record<NonNullable<CustomerListQuery['orderBy']>, repo.CustomerOrder>;

/**
 * Newest first unless `orderBy` says otherwise; `cursor` (keyset, any order) wins over
 * `pageNumber`. A cursor names its order (the default's excepted), so one from another order is
 * a 400.
 */
export async function listCustomers(ctx: Context, shop: ShopRow, query: CustomerListQuery) {
  const { db } = ctx;
  const { from, to } = parseDateRange(query, shopClock(shop));
  const filter = { search: query.searchString, from, to };
  const orderBy = query.orderBy ?? '-createdAt';
  const order = orders[orderBy];
  const cursorOrder = orderBy === '-createdAt' ? undefined : orderBy;
  const { limit, offset } = pageWindow(query);
  const after =
    query.cursor === undefined
      ? undefined
      : decodeCursor(query.cursor, order.column === 'email' ? 'string' : 'number', 'number', cursorOrder);
  const [rows, totalCount] = await Promise.all([
    repo.listCustomers(db, shop.id, filter, { order, limit: limit + 1, offset, after }),
    repo.countCustomers(db, shop.id, filter),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (c) => ({ value: c[order.column], id: c.id }), cursorOrder);
  return {
    ...toPage(
      items.map((c) => toCustomer(c, shop.currency)),
      totalCount,
      query,
    ),
    nextCursor,
  };
}

export async function listCustomerIps(ctx: Context, shop: ShopRow, customerId: number, query: PageQuery) {
  const { db } = ctx;
  await requireCustomer(db, shop.id, customerId);
  const [rows, total] = await Promise.all([
    repo.listCustomerIps(db, shop.id, customerId, pageWindow(query)),
    repo.countCustomerIps(db, shop.id, customerId),
  ]);
  const items = rows.map((r) => ({
    ip: r.ip,
    firstSeenAt: toIso(r.first_seen_at),
    lastSeenAt: toIso(r.last_seen_at),
    count: r.count,
  }));
  return toPage(items, total, query);
}

const DAY = 86_400_000;
/** How many customers the figures list by amount spent. */
const TOP_CUSTOMERS = 10;

/** Figures over `fromDate`/`toDate` (default: the last 30 days). */
export async function customerStats(
  ctx: Context,
  shop: ShopRow,
  query: { fromDate?: string | undefined; toDate?: string | undefined },
) {
  const parsed = parseDateRange(query, shopClock(shop));
  const to = parsed.to ?? ctx.clock.now();
  const from = parsed.from ?? to - 30 * DAY;
  // The buyers (who came back, who spent most) are figures of the orders: the rollups module reads them.
  const [totals, buyers] = await Promise.all([
    repo.customerTotals(ctx.db, shop.id, { from, to }),
    buyersOfRange(ctx, shop.id, { from, to }, TOP_CUSTOMERS),
  ]);
  return {
    fromDate: toIso(from),
    toDate: toIso(to),
    currency: shop.currency,
    totalCustomers: totals.total,
    newCustomers: totals.newCustomers,
    returningCustomers: buyers.returning,
    totalBalance: fromMinorUnits(totals.balance, shop.currency),
    topCustomers: buyers.top.map((t) => ({
      customerId: t.customerId,
      email: t.email,
      totalSpent: fromMinorUnits(t.spent, shop.currency),
      orders: t.orders,
    })),
  };
}

/**
 * Sets when customers appeared and last bought from their orders' dates, for imported or demo
 * history (see the orders module's history.service.ts: its `customerOrderDates` answers them once
 * the orders are moved to their times): a customer is created with their first order and last
 * bought with their latest completed one (none: null). Customers not listed are left as they are.
 */
export async function backdateCustomers(
  db: Conn,
  shopId: number,
  dates: { customerId: number; firstOrderAt: number; lastCompletedAt: number | null }[],
): Promise<void> {
  for (const d of dates)
    await repo.setCustomerDates(db, shopId, d.customerId, {
      createdAt: d.firstOrderAt,
      lastOrderAt: d.lastCompletedAt,
    });
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ValidationError } from '../../http/errors.js';
import { toIso } from '../../schemas/common.js';
import { parseDateRange } from '../../schemas/dates.js';
import { fromMinorUnits } from '../../schemas/money.js';
import { expireOverdue } from '../invoices/lifecycle.service.js';
import type { ShopRow } from '../shops/shops.table.js';
import * as repo from './repository.js';
import { DAY_MS, type Range } from './repository.js';

type Conn = Kysely<Database>;

export const MAX_RANGE_DAYS = 366;
const DEFAULT_DAYS = 30;

interface RangeQuery {
  fromDate?: string | undefined;
  toDate?: string | undefined;
}

/** A dashboard range: the bounds and the shop-local days they cover (days since 1970-01-01). */
interface DayRange extends Range {
  firstDay: number;
  lastDay: number;
}

const localDayOf = (ms: number, offsetMs: number) => Math.floor((ms + offsetMs) / DAY_MS);

/**
 * `fromDate`/`toDate` in the shop's timezone; by default the last 30 days ending today (whole
 * local days). A range may cover at most 366 local days.
 */
export function dashboardRange(shop: ShopRow, query: RangeQuery, now = Date.now()): DayRange {
  const offsetMs = shop.utc_offset_minutes * 60_000;
  const parsed = parseDateRange(query, shop.utc_offset_minutes);
  const to = parsed.to ?? (localDayOf(now, offsetMs) + 1) * DAY_MS - offsetMs - 1;
  const from = parsed.from ?? (localDayOf(to, offsetMs) - (DEFAULT_DAYS - 1)) * DAY_MS - offsetMs;
  if (from > to) throw ValidationError.field('fromDate', 'must not be after toDate');
  const firstDay = localDayOf(from, offsetMs);
  const lastDay = localDayOf(to, offsetMs);
  if (lastDay - firstDay + 1 > MAX_RANGE_DAYS) throw ValidationError.field('toDate', `the range must cover at most ${MAX_RANGE_DAYS} days`);
  return { from, to, offsetMs, firstDay, lastDay };
}

/** Half up, in integers: minor units stay exact. */
function divideRoundingHalfUp(total: number, count: number): number {
  return count === 0 ? 0 : Math.floor((2 * total + count) / (2 * count));
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Sales figures and a day-by-day series (every day of the range, empty ones included). */
export async function generalDashboard(db: Conn, shop: ShopRow, query: RangeQuery) {
  const range = dashboardRange(shop, query);
  // Like every invoice read, count overdue unpaid invoices as what they are: expired.
  await expireOverdue(db, 500, shop.id);
  const [completed, created, units, customers, revenueDays, orderDays] = await Promise.all([
    repo.completedTotals(db, shop.id, range),
    repo.createdTotals(db, shop.id, range),
    repo.unitsSold(db, shop.id, range),
    repo.newCustomers(db, shop.id, range),
    repo.revenueByDay(db, shop.id, range),
    repo.ordersByDay(db, shop.id, range),
  ]);
  const revenueOn = new Map(revenueDays.map((d) => [d.day, d.revenue]));
  const ordersOn = new Map(orderDays.map((d) => [d.day, d.orders]));
  const money = (minor: number) => fromMinorUnits(minor, shop.currency);
  const series = [];
  for (let day = range.firstDay; day <= range.lastDay; day++) {
    series.push({ date: isoDay(day), revenue: money(revenueOn.get(day) ?? 0), orders: ordersOn.get(day) ?? 0 });
  }
  return {
    fromDate: toIso(range.from),
    toDate: toIso(range.to),
    currency: shop.currency,
    revenue: money(completed.revenue),
    ordersCount: created.created,
    completedOrders: completed.orders,
    pendingOrders: created.pending,
    productsSold: units,
    newCustomers: customers,
    averageOrderValue: money(divideRoundingHalfUp(completed.revenue, completed.orders)),
    series,
  };
}

const TOP_PRODUCTS = 10;

/** Where the money comes from, what sells, who comes back, and when they buy. */
export async function advancedDashboard(db: Conn, shop: ShopRow, query: RangeQuery) {
  const range = dashboardRange(shop, query);
  await expireOverdue(db, 500, shop.id);
  const [gateways, products, created, buyers, rated, hours, replaced] = await Promise.all([
    repo.revenueByGateway(db, shop.id, range),
    repo.topProducts(db, shop.id, range, TOP_PRODUCTS),
    repo.createdTotals(db, shop.id, range),
    repo.buyersInRange(db, shop.id, range),
    repo.ratings(db, shop.id, range),
    repo.completedByHour(db, shop.id, range),
    repo.replacements(db, shop.id, range),
  ]);
  const money = (minor: number) => fromMinorUnits(minor, shop.currency);
  const ordersByHour = Array.from({ length: 24 }, () => 0);
  for (const h of hours) ordersByHour[h.hour] = h.orders;
  return {
    fromDate: toIso(range.from),
    toDate: toIso(range.to),
    currency: shop.currency,
    revenueByGateway: gateways.map((g) => ({ gateway: g.gateway, revenue: money(g.revenue), orders: g.orders })),
    topProducts: products.map((p) => ({ productId: p.productId, title: p.title, revenue: money(p.revenue), quantity: p.quantity })),
    conversionRate: ratio(created.completed, created.created),
    returningCustomerRate: ratio(buyers.returning, buyers.buyers),
    averageRating: rated.count === 0 ? null : Math.round((rated.sum / rated.count) * 100) / 100,
    ordersByHour,
    refundsAndReplacements: replaced,
  };
}

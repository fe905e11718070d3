import type { Context } from '../../domain/context.js';
import { ValidationError } from '../../http/errors.js';
import { toIso } from '../../schemas/common.js';
import { parseDateRange } from '../../schemas/dates.js';
import { fromMinorUnits } from '../../schemas/money.js';
import { shopClock } from '../../shared/shop-clock.js';
import { expireOverdue } from '../orders/index.js';
import { breakdownOfRange, DAY_MS, type Range, salesOfRange } from '../rollups/index.js';
import type { ShopRow } from '../shops/index.js';

export const MAX_RANGE_DAYS = 366;
const DEFAULT_DAYS = 30;

interface RangeQuery {
  fromDate?: string | undefined;
  toDate?: string | undefined;
}

/**
 * `fromDate`/`toDate` in the shop's timezone; by default the last 30 days ending today (whole
 * local days, today being that of `now`). A range may cover at most 366 local days. Its figures
 * come from the rollups (salesOfRange, breakdownOfRange), which read the range in their own days.
 */
export function dashboardRange(shop: ShopRow, query: RangeQuery, now: number): Range {
  const clock = shopClock(shop);
  const parsed = parseDateRange(query, clock);
  const to = parsed.to ?? clock.dayStart(clock.dayOf(now) + 1) - 1;
  const from = parsed.from ?? clock.dayStart(clock.dayOf(to) - (DEFAULT_DAYS - 1));
  if (from > to) throw ValidationError.field('fromDate', 'must not be after toDate');
  const firstDay = clock.dayOf(from);
  const lastDay = clock.dayOf(to);
  if (lastDay - firstDay + 1 > MAX_RANGE_DAYS)
    throw ValidationError.field('toDate', `the range must cover at most ${MAX_RANGE_DAYS} days`);
  return { from, to };
}

/** Half up, in integers: minor units stay exact. */
function divideRoundingHalfUp(total: number, count: number): number {
  return count === 0 ? 0 : Math.floor((2 * total + count) / (2 * count));
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

/** 'YYYY-MM-DD' of a day number, remembered: a year's series asks for the same few hundred days again and again. */
const isoDays = new Map<number, string>();
function isoDay(day: number): string {
  let iso = isoDays.get(day);
  if (iso === undefined) {
    iso = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (isoDays.size < 100_000) isoDays.set(day, iso);
  }
  return iso;
}

/** Sales figures and a day-by-day series (every day of the range, empty ones included). */
export async function generalDashboard(ctx: Context, shop: ShopRow, query: RangeQuery) {
  // Like every invoice read, count overdue unpaid invoices as what they are: expired.
  await expireOverdue(ctx, { shopId: shop.id });
  const range = dashboardRange(shop, query, ctx.clock.now());
  const { firstDay, lastDay, total, days, rebuilding } = await salesOfRange(ctx, shop, range);
  const money = (minor: number) => fromMinorUnits(minor, shop.currency);
  const series = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const point = days.get(day);
    series.push(
      point
        ? { date: isoDay(day), revenue: money(point.revenue), orders: point.orders }
        : { date: isoDay(day), revenue: 0, orders: 0 },
    );
  }
  return {
    fromDate: toIso(range.from),
    toDate: toIso(range.to),
    currency: shop.currency,
    revenue: money(total.revenue),
    ordersCount: total.created_orders,
    completedOrders: total.completed_orders,
    pendingOrders: total.created_pending,
    productsSold: total.units_sold,
    newCustomers: total.new_customers,
    averageOrderValue: money(divideRoundingHalfUp(total.revenue, total.completed_orders)),
    series,
    rollupsRebuilding: rebuilding,
  };
}

const TOP_PRODUCTS = 10;

/** Where the money comes from, what sells, who comes back, and when they buy. */
export async function advancedDashboard(ctx: Context, shop: ShopRow, query: RangeQuery) {
  await expireOverdue(ctx, { shopId: shop.id });
  const range = dashboardRange(shop, query, ctx.clock.now());
  const { total, gateways, topProducts, ordersByHour, rebuilding } = await breakdownOfRange(
    ctx,
    shop,
    range,
    TOP_PRODUCTS,
  );
  const money = (minor: number) => fromMinorUnits(minor, shop.currency);
  return {
    fromDate: toIso(range.from),
    toDate: toIso(range.to),
    currency: shop.currency,
    revenueByGateway: gateways.map((g) => ({ gateway: g.gateway, revenue: money(g.revenue), orders: g.orders })),
    topProducts: topProducts.map((p) => ({ ...p, revenue: money(p.revenue) })),
    conversionRate: ratio(total.created_completed, total.created_orders),
    returningCustomerRate: ratio(total.repeat_orders, total.completed_orders),
    averageRating: total.feedbacks === 0 ? null : Math.round((total.rating_sum / total.feedbacks) * 100) / 100,
    ordersByHour,
    refundsAndReplacements: {
      count: total.replacements + total.refunds,
      units: total.replaced_units,
      replacements: total.replacements,
      refunds: total.refunds,
      refundedAmount: money(total.refunded),
    },
    rollupsRebuilding: rebuilding,
  };
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ValidationError } from '../../http/errors.js';
import { toIso } from '../../schemas/common.js';
import { parseDateRange } from '../../schemas/dates.js';
import { fromMinorUnits } from '../../schemas/money.js';
import { expireOverdue } from '../orders/index.js';
import * as rollupStore from '../rollups/index.js';
import {
  DAY_MS,
  type DayTotals,
  dayStart,
  type LocalDaySplit,
  localDayOf,
  type ProductSales,
  type Range,
  type Rollups,
  splitAtLocalMidnights,
  TOTAL_COLUMNS,
} from '../rollups/index.js';
import type { ShopRow } from '../shops/index.js';

type Conn = Kysely<Database>;

export const MAX_RANGE_DAYS = 366;
const DEFAULT_DAYS = 30;

interface RangeQuery {
  fromDate?: string | undefined;
  toDate?: string | undefined;
}

/** A dashboard range: the bounds and the shop-local days they cover (days since 1970-01-01). */
interface DayRange extends Range {
  offsetMs: number;
  firstDay: number;
  lastDay: number;
}

/**
 * `fromDate`/`toDate` in the shop's timezone; by default the last 30 days ending today (whole
 * local days, today being that of `now`). A range may cover at most 366 local days.
 */
export function dashboardRange(shop: ShopRow, query: RangeQuery, now: number): DayRange {
  const offsetMs = shop.utc_offset_minutes * 60_000;
  const parsed = parseDateRange(query, shop.utc_offset_minutes);
  const to = parsed.to ?? (localDayOf(now, offsetMs) + 1) * DAY_MS - offsetMs - 1;
  const from = parsed.from ?? (localDayOf(to, offsetMs) - (DEFAULT_DAYS - 1)) * DAY_MS - offsetMs;
  if (from > to) throw ValidationError.field('fromDate', 'must not be after toDate');
  const firstDay = localDayOf(from, offsetMs);
  const lastDay = localDayOf(to, offsetMs);
  if (lastDay - firstDay + 1 > MAX_RANGE_DAYS)
    throw ValidationError.field('toDate', `the range must cover at most ${MAX_RANGE_DAYS} days`);
  return { from, to, offsetMs, firstDay, lastDay };
}

/**
 * The range and the rollups it is read from. The rollups' local days are in the shop's offset,
 * except while a timezone change rebuilds them: then days (the series, hours of day) are those of
 * the previous offset until the rebuild ends, and the figures of the range are exact all the same.
 */
async function rangeAndRollups(ctx: Context, shop: ShopRow, query: RangeQuery) {
  const { db } = ctx;
  const asked = dashboardRange(shop, query, ctx.clock.now());
  const view = await rollupStore.rollupView(db, shop.id, shop.utc_offset_minutes);
  const offsetMs = view.offsetMinutes * 60_000;
  const range: DayRange = {
    from: asked.from,
    to: asked.to,
    offsetMs,
    firstDay: localDayOf(asked.from, offsetMs),
    lastDay: localDayOf(asked.to, offsetMs),
  };
  return { range, rollups: { shopId: shop.id, generation: view.generation }, rebuilding: view.rebuilding };
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

/** A dashboard range's whole local days (bounded on both sides) and partial edge days. */
function splitRange(range: DayRange): { whole?: { first: number; last: number }; edges: Range[] } {
  const split: LocalDaySplit = splitAtLocalMidnights(range.from, range.to, range.offsetMs);
  return split.whole
    ? { whole: { first: split.whole.first!, last: split.whole.last! }, edges: split.edges }
    : { edges: split.edges };
}

const addTotals = (a: DayTotals, b: DayTotals): DayTotals =>
  Object.fromEntries(TOTAL_COLUMNS.map((c) => [c, a[c] + b[c]])) as DayTotals;

/**
 * The figures of a range: whole local days from the rollups, the partial first
 * and last days (date-time bounds) from the raw rows; both exact, so their sum is too.
 */
async function rangeTotals(
  db: Conn,
  rollups: Rollups,
  split: ReturnType<typeof splitRange>,
): Promise<{ total: DayTotals; edges: DayTotals[] }> {
  const [whole, edges] = await Promise.all([
    split.whole ? rollupStore.rollupTotals(db, rollups, split.whole) : rollupStore.zeroTotals(),
    Promise.all(split.edges.map((edge) => rollupStore.rawTotals(db, rollups.shopId, edge))),
  ]);
  return { total: edges.reduce(addTotals, whole), edges };
}

/** Sales figures and a day-by-day series (every day of the range, empty ones included). */
export async function generalDashboard(ctx: Context, shop: ShopRow, query: RangeQuery) {
  const { db } = ctx;
  // Like every invoice read, count overdue unpaid invoices as what they are: expired.
  await expireOverdue(ctx, { shopId: shop.id });
  const { range, rollups, rebuilding } = await rangeAndRollups(ctx, shop, query);
  const split = splitRange(range);
  const [{ total, edges }, days] = await Promise.all([
    rangeTotals(db, rollups, split),
    split.whole
      ? rollupStore.rollupSeries(db, rollups, split.whole)
      : new Map<number, { revenue: number; orders: number }>(),
  ]);
  split.edges.forEach((edge, i) => {
    const day = localDayOf(edge.from, range.offsetMs);
    const point = days.get(day) ?? { revenue: 0, orders: 0 };
    days.set(day, { revenue: point.revenue + edges[i]!.revenue, orders: point.orders + edges[i]!.created_orders });
  });
  const money = (minor: number) => fromMinorUnits(minor, shop.currency);
  const series = [];
  for (let day = range.firstDay; day <= range.lastDay; day++) {
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

/** Adds up rows that share a key. */
function mergeBy<T>(rows: T[], key: (row: T) => string | number, add: (a: T, b: T) => T): T[] {
  const merged = new Map<string | number, T>();
  for (const row of rows) {
    const k = key(row);
    const seen = merged.get(k);
    merged.set(k, seen === undefined ? row : add(seen, row));
  }
  return [...merged.values()];
}

/**
 * The best sellers of the range by part totals, titled as sold in their latest order (highest
 * part id) completed up to the end of the range: the snapshot of the last whole day up to then,
 * plus the raw rows of a partial last day.
 */
async function topProducts(db: Conn, rollups: Rollups, range: DayRange, split: ReturnType<typeof splitRange>) {
  const { shopId } = rollups;
  let top: ProductSales[];
  if (split.edges.length === 0 && split.whole) {
    top = await rollupStore.rollupProducts(db, rollups, split.whole, TOP_PRODUCTS);
  } else {
    const [whole, edges] = await Promise.all([
      split.whole ? rollupStore.rollupProducts(db, rollups, split.whole) : [],
      Promise.all(split.edges.map((edge) => rollupStore.rawProducts(db, shopId, edge))),
    ]);
    top = mergeBy(
      [...whole, ...edges.flat()],
      (p) => p.productId,
      (a, b) => ({ ...a, revenue: a.revenue + b.revenue, quantity: a.quantity + b.quantity }),
    )
      .sort((a, b) => b.revenue - a.revenue || b.quantity - a.quantity || a.productId - b.productId)
      .slice(0, TOP_PRODUCTS);
    const ids = top.map((p) => p.productId);
    const endDay = localDayOf(range.to, range.offsetMs);
    const endsWithDay = range.to === dayStart(endDay + 1, range.offsetMs) - 1;
    const [sold, soldLastDay] = await Promise.all([
      rollupStore.rollupLastParts(db, rollups, endsWithDay ? endDay : endDay - 1, ids),
      endsWithDay
        ? []
        : rollupStore.rawProducts(db, shopId, { from: dayStart(endDay, range.offsetMs), to: range.to }, ids),
    ]);
    const lastDay = new Map(soldLastDay.map((p) => [p.productId, p.lastPartId]));
    top = top.map((p) => ({ ...p, lastPartId: Math.max(sold.get(p.productId) ?? 0, lastDay.get(p.productId) ?? 0) }));
  }
  const titles = await rollupStore.partTitles(
    db,
    shopId,
    top.map((p) => p.lastPartId),
  );
  return top.map((p) => ({
    productId: p.productId,
    title: titles.get(p.lastPartId) ?? '',
    revenue: p.revenue,
    quantity: p.quantity,
  }));
}

/** Where the money comes from, what sells, who comes back, and when they buy. */
export async function advancedDashboard(ctx: Context, shop: ShopRow, query: RangeQuery) {
  const { db } = ctx;
  await expireOverdue(ctx, { shopId: shop.id });
  const { range, rollups, rebuilding } = await rangeAndRollups(ctx, shop, query);
  const split = splitRange(range);
  const [{ total }, gateways, products, hours] = await Promise.all([
    rangeTotals(db, rollups, split),
    Promise.all([
      split.whole ? rollupStore.rollupGateways(db, rollups, split.whole) : [],
      ...split.edges.map((edge) => rollupStore.rawGateways(db, shop.id, edge)),
    ]),
    topProducts(db, rollups, range, split),
    Promise.all([
      split.whole ? rollupStore.rollupHours(db, rollups, split.whole) : [],
      ...split.edges.map((edge) => rollupStore.rawHours(db, shop.id, edge, range.offsetMs)),
    ]),
  ]);
  const money = (minor: number) => fromMinorUnits(minor, shop.currency);
  const ordersByHour = Array.from({ length: 24 }, () => 0);
  for (const h of hours.flat()) ordersByHour[h.hour]! += h.orders;
  const byGateway = mergeBy(
    gateways.flat(),
    (g) => g.gateway,
    (a, b) => ({ gateway: a.gateway, revenue: a.revenue + b.revenue, orders: a.orders + b.orders }),
  ).sort((a, b) => b.revenue - a.revenue || (a.gateway < b.gateway ? -1 : a.gateway > b.gateway ? 1 : 0));
  return {
    fromDate: toIso(range.from),
    toDate: toIso(range.to),
    currency: shop.currency,
    revenueByGateway: byGateway.map((g) => ({ gateway: g.gateway, revenue: money(g.revenue), orders: g.orders })),
    topProducts: products.map((p) => ({ ...p, revenue: money(p.revenue) })),
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

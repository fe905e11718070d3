import type { Context } from '../../domain/context.js';
import type { ShopRow } from '../shops/index.js';
import { clockOf, type ShopClock, splitAtLocalMidnights } from './local-days.js';
import * as repo from './repository.js';
import { type DayTotals, TOTAL_COLUMNS } from './rollup-rows.js';

// The figures of a range of date-times, as the dashboards and the invoice list ask for them: the
// whole local days from the rollups, the partial first and last days (date-time bounds) from the
// raw rows; both exact, so their sum is too. Each question is one operation here, so that which
// figures come from buckets and which from rows stays this module's business.

type Shop = Pick<ShopRow, 'id' | 'utc_offset_minutes' | 'timezone'>;

const shopSpec = (shop: Shop) => ({ offsetMinutes: shop.utc_offset_minutes, timezone: shop.timezone });

/**
 * A range and the rollups it is read from. The rollups' local days are on the shop's clock,
 * except while a timezone change rebuilds them: then days (the series, hours of day) are those of
 * the previous clock until the rebuild ends, and the figures of the range are exact all the same.
 */
interface RangeView {
  from: number;
  to: number;
  clock: ShopClock;
  /** The local days the range touches, first…last, on the rollups' clock. */
  firstDay: number;
  lastDay: number;
  /** The whole local days of the range (bounded on both sides), absent when it covers none. */
  whole?: repo.WholeDays;
  /** The parts of the range that cover a local day only partly. */
  edges: repo.Range[];
  rollups: repo.Rollups;
  rebuilding: boolean;
}

async function viewOf(ctx: Context, shop: Shop, range: repo.Range): Promise<RangeView> {
  const view = await repo.rollupView(ctx.db, shop.id, shopSpec(shop));
  const clock = clockOf(view.clock);
  const split = splitAtLocalMidnights(range.from, range.to, clock);
  return {
    from: range.from,
    to: range.to,
    clock,
    firstDay: clock.dayOf(range.from),
    lastDay: clock.dayOf(range.to),
    ...(split.whole ? { whole: { first: split.whole.first!, last: split.whole.last! } } : {}),
    edges: split.edges,
    rollups: { shopId: shop.id, generation: view.generation },
    rebuilding: view.rebuilding,
  };
}

const addTotals = (a: DayTotals, b: DayTotals): DayTotals =>
  Object.fromEntries(TOTAL_COLUMNS.map((c) => [c, a[c] + b[c]])) as DayTotals;

/** The totals of the range, and those of each partial day apart (the series adds them to their days). */
async function totalsOf(ctx: Context, view: RangeView): Promise<{ total: DayTotals; edges: DayTotals[] }> {
  const [whole, edges] = await Promise.all([
    view.whole ? repo.rollupTotals(ctx.db, view.rollups, view.whole) : repo.zeroTotals(),
    Promise.all(view.edges.map((edge) => repo.rawTotals(ctx.db, view.rollups.shopId, edge))),
  ]);
  return { total: edges.reduce(addTotals, whole), edges };
}

export interface RangeSales {
  /** The local days of the range, first…last, in the rollups' offset: the days of `days`. */
  firstDay: number;
  lastDay: number;
  total: DayTotals;
  /** Revenue (by completion) and invoices created, per local day of the range that has any. */
  days: Map<number, { revenue: number; orders: number }>;
  /** A timezone change is rebuilding the rollups: the days are still those of the previous offset. */
  rebuilding: boolean;
}

/** The figures of a range with a day-by-day series (the general dashboard). */
export async function salesOfRange(ctx: Context, shop: Shop, range: repo.Range): Promise<RangeSales> {
  const view = await viewOf(ctx, shop, range);
  const [{ total, edges }, days] = await Promise.all([
    totalsOf(ctx, view),
    view.whole
      ? repo.rollupSeries(ctx.db, view.rollups, view.whole)
      : new Map<number, { revenue: number; orders: number }>(),
  ]);
  view.edges.forEach((edge, i) => {
    const day = view.clock.dayOf(edge.from);
    const point = days.get(day) ?? { revenue: 0, orders: 0 };
    days.set(day, { revenue: point.revenue + edges[i]!.revenue, orders: point.orders + edges[i]!.created_orders });
  });
  return { firstDay: view.firstDay, lastDay: view.lastDay, total, days, rebuilding: view.rebuilding };
}

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
async function topProducts(ctx: Context, view: RangeView, limit: number) {
  const { db } = ctx;
  const { rollups } = view;
  const { shopId } = rollups;
  let top: repo.ProductSales[];
  if (view.edges.length === 0 && view.whole) {
    top = await repo.rollupProducts(db, rollups, view.whole, limit);
  } else {
    const [whole, edges] = await Promise.all([
      view.whole ? repo.rollupProducts(db, rollups, view.whole) : [],
      Promise.all(view.edges.map((edge) => repo.rawProducts(db, shopId, edge))),
    ]);
    top = mergeBy(
      [...whole, ...edges.flat()],
      (p) => p.productId,
      (a, b) => ({ ...a, revenue: a.revenue + b.revenue, quantity: a.quantity + b.quantity }),
    )
      .sort((a, b) => b.revenue - a.revenue || b.quantity - a.quantity || a.productId - b.productId)
      .slice(0, limit);
    const ids = top.map((p) => p.productId);
    const endDay = view.clock.dayOf(view.to);
    const endsWithDay = view.to === view.clock.dayStart(endDay + 1) - 1;
    const [sold, soldLastDay] = await Promise.all([
      repo.rollupLastParts(db, rollups, endsWithDay ? endDay : endDay - 1, ids),
      endsWithDay ? [] : repo.rawProducts(db, shopId, { from: view.clock.dayStart(endDay), to: view.to }, ids),
    ]);
    const lastDay = new Map(soldLastDay.map((p) => [p.productId, p.lastPartId]));
    top = top.map((p) => ({ ...p, lastPartId: Math.max(sold.get(p.productId) ?? 0, lastDay.get(p.productId) ?? 0) }));
  }
  const titles = await repo.partTitles(
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

export interface RangeBreakdown {
  total: DayTotals;
  /** Completed invoices and their totals per gateway, by revenue then name. */
  gateways: { gateway: string; revenue: number; orders: number }[];
  /** The `top` best sellers (see topProducts). */
  topProducts: { productId: number; title: string; revenue: number; quantity: number }[];
  /** Completed invoices per local hour of completion, 0…23. */
  ordersByHour: number[];
  rebuilding: boolean;
}

/** The figures of a range broken down by gateway, product and hour of day (the advanced dashboard). */
export async function breakdownOfRange(
  ctx: Context,
  shop: Shop,
  range: repo.Range,
  top: number,
): Promise<RangeBreakdown> {
  const { db } = ctx;
  const view = await viewOf(ctx, shop, range);
  const [{ total }, gateways, products, hours] = await Promise.all([
    totalsOf(ctx, view),
    Promise.all([
      view.whole ? repo.rollupGateways(db, view.rollups, view.whole) : [],
      ...view.edges.map((edge) => repo.rawGateways(db, shop.id, edge)),
    ]),
    topProducts(ctx, view, top),
    Promise.all([
      view.whole ? repo.rollupHours(db, view.rollups, view.whole) : [],
      ...view.edges.map((edge) => repo.rawHours(db, shop.id, edge, view.clock)),
    ]),
  ]);
  const ordersByHour = Array.from({ length: 24 }, () => 0);
  for (const h of hours.flat()) ordersByHour[h.hour]! += h.orders;
  const byGateway = mergeBy(
    gateways.flat(),
    (g) => g.gateway,
    (a, b) => ({ gateway: a.gateway, revenue: a.revenue + b.revenue, orders: a.orders + b.orders }),
  ).sort((a, b) => b.revenue - a.revenue || (a.gateway < b.gateway ? -1 : a.gateway > b.gateway ? 1 : 0));
  return { total, gateways: byGateway, topProducts: products, ordersByHour, rebuilding: view.rebuilding };
}

/**
 * Invoices created in the range (either end open), optionally of one status and gateway, without
 * counting the shop's invoices: the whole local days from the created-day rollups (two
 * snapshots), the partial first and last days by `countRows`, which the invoices' owner counts
 * exactly from its rows (through the (shop, status, gateway, created_at) indexes). The owner
 * list's totalCount.
 */
export async function countInvoicesCreatedIn(
  ctx: Context,
  shop: Shop,
  range: { from?: number | undefined; to?: number | undefined },
  filter: { status?: string | undefined; gateway?: string | undefined },
  countRows: (edge: repo.Range) => Promise<number>,
): Promise<number> {
  const view = await repo.rollupView(ctx.db, shop.id, shopSpec(shop));
  const split = splitAtLocalMidnights(range.from, range.to, clockOf(view.clock));
  const rollups = { shopId: shop.id, generation: view.generation };
  const counts = await Promise.all([
    split.whole ? repo.countCreatedInvoices(ctx.db, rollups, split.whole, filter) : 0,
    ...split.edges.map((edge) => countRows(edge)),
  ]);
  return counts.reduce((sum, n) => sum + n, 0);
}

export interface RangeBuyers {
  /** Customers who completed an order in the range after an earlier completed one. */
  returning: number;
  /** The `top` customers by what they spent on orders completed in the range (then by id). */
  top: { customerId: number; email: string; spent: number; orders: number }[];
}

/**
 * The buyers of a range (the customers module's figures): who came back and who spent most. Read
 * from the invoices themselves, since no rollup keeps a customer's history: a returning buyer is
 * one whose completions up to the range's end number two or more, the last of them in the range.
 */
export async function buyersOfRange(
  ctx: Context,
  shopId: number,
  range: repo.Range,
  top: number,
): Promise<RangeBuyers> {
  const [returning, buyers] = await Promise.all([
    repo.countReturningBuyers(ctx.db, shopId, range),
    repo.topBuyers(ctx.db, shopId, range, top),
  ]);
  return { returning, top: buyers };
}

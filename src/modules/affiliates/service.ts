import type { Context } from '../../domain/context.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { type PageQuery, toIso } from '../../schemas/common.js';
import { parseDateRange } from '../../schemas/dates.js';
import { fromMinorUnits } from '../../schemas/money.js';
import { shopClock } from '../../shared/shop-clock.js';
import * as customers from '../customers/index.js';
import type { ShopRow } from '../shops/index.js';
import * as repo from './repository.js';

const DAY = 86_400_000;

/** Customers with referrals: completed referred orders, their revenue, the commission earned. */
export async function listAffiliates(ctx: Context, shop: ShopRow, query: PageQuery) {
  const { db } = ctx;
  const [rows, total] = await Promise.all([
    repo.listAffiliates(db, shop.id, query.searchString, pageWindow(query)),
    repo.countAffiliates(db, shop.id, query.searchString),
  ]);
  const items = rows.map((r) => ({
    customerId: r.id,
    email: r.email,
    referralCode: r.referral_code,
    referredOrders: Number(r.orders),
    referredRevenue: fromMinorUnits(Number(r.revenue), shop.currency),
    earned: fromMinorUnits(Number(r.earned), shop.currency),
    currency: shop.currency,
    disabled: r.referral_disabled === 1,
  }));
  return toPage(items, total, query);
}

export async function affiliateStats(
  ctx: Context,
  shop: ShopRow,
  query: { fromDate?: string | undefined; toDate?: string | undefined },
) {
  const parsed = parseDateRange(query, shopClock(shop));
  const to = parsed.to ?? ctx.clock.now();
  const from = parsed.from ?? to - 30 * DAY;
  const totals = await repo.affiliateTotals(ctx.db, shop.id, { from, to });
  return {
    fromDate: toIso(from),
    toDate: toIso(to),
    percentage: shop.affiliate_bps / 100,
    currency: shop.currency,
    activeAffiliates: totals.affiliates,
    referredOrders: totals.orders,
    referredRevenue: fromMinorUnits(totals.revenue, shop.currency),
    commissionPaid: fromMinorUnits(totals.commission, shop.currency),
  };
}

/** No commission from this customer's referrals from now on. */
export function disableReferral(ctx: Context, shop: ShopRow, customerId: number) {
  return customers.disableReferrals(ctx, shop, customerId);
}

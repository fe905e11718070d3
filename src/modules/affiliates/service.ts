import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { type PageQuery, toIso } from '../../schemas/common.js';
import { parseDateRange } from '../../schemas/dates.js';
import { fromMinorUnits } from '../../schemas/money.js';
import * as customers from '../customers/index.js';
import { requireCustomer, toCustomer } from '../customers/index.js';
import type { ShopRow } from '../shops/index.js';
import * as repo from './repository.js';

type Conn = Kysely<Database>;
const DAY = 86_400_000;

/** Customers with referrals: completed referred orders, their revenue, the commission earned. */
export async function listAffiliates(db: Conn, shop: ShopRow, query: PageQuery) {
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
  db: Conn,
  shop: ShopRow,
  query: { fromDate?: string | undefined; toDate?: string | undefined },
) {
  const parsed = parseDateRange(query, shop.utc_offset_minutes);
  const to = parsed.to ?? Date.now();
  const from = parsed.from ?? to - 30 * DAY;
  const totals = await repo.affiliateTotals(db, shop.id, { from, to });
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
export async function disableReferral(db: Conn, shop: ShopRow, customerId: number) {
  await requireCustomer(db, shop.id, customerId);
  return toCustomer((await customers.setReferralDisabled(db, shop.id, customerId, Date.now()))!, shop.currency);
}

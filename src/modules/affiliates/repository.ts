import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { searchText } from '../../db/sql-helpers.js';

type Conn = Kysely<Database>;

/** Customers whose referral code brought at least one order, with what their referrals added up to. */
function referrers(db: Conn, shopId: number, search: string | undefined) {
  let query = db
    .selectFrom('customers as c')
    .innerJoin('invoices as i', (join) =>
      join.onRef('i.affiliate_customer_id', '=', 'c.id').on('i.shop_id', '=', shopId),
    )
    .where('c.shop_id', '=', shopId);
  if (search) query = query.where(searchText(db, 'customers', 'c', ['email'], search));
  return query;
}

/** Customers with the invoices they referred, by revenue. */
export function listAffiliates(
  db: Conn,
  shopId: number,
  search: string | undefined,
  page: { limit: number; offset: number },
) {
  const query = referrers(db, shopId, search)
    .select((eb) => [
      'c.id',
      'c.email',
      'c.referral_code',
      'c.referral_disabled',
      eb.fn.sum<number>(eb.case().when('i.status', '=', 'completed').then(1).else(0).end()).as('orders'),
      eb.fn
        .sum<number>(eb.case().when('i.status', '=', 'completed').then(eb.ref('i.total')).else(0).end())
        .as('revenue'),
      eb.fn.sum<number>('i.commission').as('earned'),
    ])
    .groupBy(['c.id', 'c.email', 'c.referral_code', 'c.referral_disabled'])
    .orderBy('revenue', 'desc')
    .orderBy('c.id')
    .limit(page.limit)
    .offset(page.offset);
  return query.execute();
}

export async function countAffiliates(db: Conn, shopId: number, search: string | undefined): Promise<number> {
  const row = await referrers(db, shopId, search)
    .select((eb) => eb.fn.count<number>('c.id').distinct().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function affiliateTotals(db: Conn, shopId: number, range: { from: number; to: number }) {
  const query = db
    .selectFrom('invoices')
    .select((eb) => [
      eb.fn.count<number>('affiliate_customer_id').distinct().as('affiliates'),
      eb.fn.countAll<number>().as('orders'),
      eb.fn.coalesce(eb.fn.sum<number>('total'), eb.val(0)).as('revenue'),
      eb.fn.coalesce(eb.fn.sum<number>('commission'), eb.val(0)).as('commission'),
    ])
    .where('shop_id', '=', shopId)
    .where('affiliate_customer_id', 'is not', null)
    .where('status', '=', 'completed')
    .where('completed_at', '>=', range.from)
    .where('completed_at', '<=', range.to);
  const row = await query.executeTakeFirstOrThrow();
  return {
    affiliates: Number(row.affiliates),
    orders: Number(row.orders),
    revenue: Number(row.revenue),
    commission: Number(row.commission),
  };
}

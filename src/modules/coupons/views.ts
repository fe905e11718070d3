import { toIso } from '../../schemas/common.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { CouponRow } from './coupons.table.js';

/** Row → wire shape of a coupon. A fixed discount is read in the shop's current currency. */
export function toCoupon(c: CouponRow, currency: string) {
  const isFixed = c.is_fixed === 1;
  return {
    id: c.id,
    name: c.name,
    note: c.note,
    discount: isFixed ? fromMinorUnits(c.discount, currency) : c.discount / 100,
    isFixed,
    currency: isFixed ? currency : null,
    startDate: toIso(c.start_at),
    endDate: toIso(c.end_at),
    restrictToProducts: JSON.parse(c.restrict_products) as number[],
    restrictToGateways: JSON.parse(c.restrict_gateways) as string[],
    maxUses: c.max_uses,
    uses: c.uses,
    createdAt: toIso(c.created_at),
    updatedAt: toIso(c.updated_at),
  };
}
export type CouponView = ReturnType<typeof toCoupon>;

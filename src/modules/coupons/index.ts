// The coupons module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export type { CouponRow } from './coupons.table.js';
export { couponOwnerRoutes } from './owner.routes.js';
export {
  claimCouponUse,
  couponDiscount,
  findCouponByCode,
  releaseCouponUse,
  rescaleFixedDiscounts,
} from './service.js';

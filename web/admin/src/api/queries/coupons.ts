import { api, unwrap } from '../client';
import type { paths } from '../schema';
import { queryKeys } from './keys';
import { pageQuery } from './list';
import { defineResource } from './resource';

export type Coupon =
  paths['/self/{shopId}/coupons']['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type CouponBody = paths['/self/{shopId}/coupons']['post']['requestBody']['content']['application/json'];

export const coupons = defineResource({
  keys: queryKeys.coupons,
  list: (shopId, query) =>
    unwrap(api.GET('/self/{shopId}/coupons', { params: { path: { shopId }, query: pageQuery(query) } })),
  create: {
    operation: 'POST /self/{shopId}/coupons',
    send: (shopId, body) => unwrap(api.POST('/self/{shopId}/coupons', { params: { path: { shopId } }, body })),
  },
  update: {
    operation: 'PUT /self/{shopId}/coupons/{couponId}',
    send: (shopId, coupon: Coupon, body) =>
      unwrap(api.PUT('/self/{shopId}/coupons/{couponId}', { params: { path: { shopId, couponId: coupon.id } }, body })),
  },
  remove: (shopId, coupon: Coupon) =>
    unwrap(api.DELETE('/self/{shopId}/coupons/{couponId}', { params: { path: { shopId, couponId: coupon.id } } })),
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnprocessableError } from '../../src/http/errors.js';
import type { CouponRow } from '../../src/modules/coupons/coupons.table.js';
import { couponDiscount } from '../../src/modules/coupons/service.js';

/** couponDiscount is a pure calculator: these tests need no database. */
const NOW = Date.UTC(2026, 5, 15);

function coupon(overrides: Partial<CouponRow> & { products?: number[]; gateways?: string[] } = {}): CouponRow {
  const { products = [], gateways = [], ...rest } = overrides;
  return {
    id: 1,
    shop_id: 1,
    name: 'CODE',
    name_key: 'code',
    note: null,
    is_fixed: 0,
    discount: 1000,
    start_at: null,
    end_at: null,
    restrict_products: JSON.stringify(products),
    restrict_gateways: JSON.stringify(gateways),
    max_uses: null,
    uses: 0,
    created_at: NOW,
    updated_at: NOW,
    ...rest,
  };
}

const order = (parts: [productId: number, total: number][], gateway = 'balance', now = NOW) => ({
  parts: parts.map(([productId, total]) => ({ productId, total })),
  gateway,
  now,
});

function assertRefused(fn: () => unknown, reason: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof UnprocessableError);
    assert.equal(err.statusCode, 422);
    assert.equal(err.code, 'unprocessable');
    assert.deepEqual(err.errors, [`coupon: ${reason}`]);
    return true;
  });
}

test('percentage: floor(subtotal × basis points / 10000) over every part', () => {
  assert.equal(couponDiscount(coupon({ discount: 1000 }), order([[1, 999]])), 99, '10 % of 9.99 is 0.999 → 0.99');
  assert.equal(couponDiscount(coupon({ discount: 1234 }), order([[1, 1000]])), 123, '12.34 % of 10.00 is 1.234 → 1.23');
  assert.equal(
    couponDiscount(
      coupon({ discount: 1234 }),
      order([
        [1, 600],
        [2, 400],
      ]),
    ),
    123,
    'the sum of the parts, not each part, is rounded',
  );
  assert.equal(
    couponDiscount(
      coupon({ discount: 3333 }),
      order([
        [1, 1],
        [2, 1],
        [3, 1],
      ]),
    ),
    0,
    'never rounded up',
  );
  assert.equal(couponDiscount(coupon({ discount: 3333 }), order([[1, 300]])), 99);
  assert.equal(couponDiscount(coupon({ discount: 1 }), order([[1, 9999]])), 0, '0.01 % of 99.99');
  assert.equal(couponDiscount(coupon({ discount: 1 }), order([[1, 10000]])), 1);
  assert.equal(
    couponDiscount(
      coupon({ discount: 10000 }),
      order([
        [1, 4321],
        [2, 1],
      ]),
    ),
    4322,
    '100 % is the whole subtotal',
  );
  assert.equal(couponDiscount(coupon({ discount: 5000 }), order([])), 0, 'an empty order has nothing to discount');
  assert.equal(couponDiscount(coupon({ discount: 5000 }), order([[1, 0]])), 0);
});

test('percentage stays exact where subtotal × basis points passes 2^53', () => {
  const subtotal = 900_719_925_474_099; // × 9999 is far past Number.MAX_SAFE_INTEGER
  const expected = Number((BigInt(subtotal) * 9999n) / 10000n);
  assert.equal(couponDiscount(coupon({ discount: 9999 }), order([[1, subtotal]])), expected);
  assert.equal(expected, 900_629_853_481_551);
});

test('fixed: the amount, never more than the eligible subtotal', () => {
  assert.equal(couponDiscount(coupon({ is_fixed: 1, discount: 500 }), order([[1, 1000]])), 500);
  assert.equal(
    couponDiscount(
      coupon({ is_fixed: 1, discount: 500 }),
      order([
        [1, 300],
        [2, 200],
      ]),
    ),
    500,
  );
  assert.equal(couponDiscount(coupon({ is_fixed: 1, discount: 1500 }), order([[1, 1000]])), 1000);
  assert.equal(couponDiscount(coupon({ is_fixed: 1, discount: 1 }), order([[1, 1]])), 1);
  assert.equal(couponDiscount(coupon({ is_fixed: 1, discount: 500 }), order([])), 0);
});

test('restricted to products: needs one of them, discounts only their parts', () => {
  const parts: [number, number][] = [
    [1, 1000],
    [2, 2000],
    [3, 4000],
  ];
  assert.equal(couponDiscount(coupon({ discount: 1000, products: [2] }), order(parts)), 200);
  assert.equal(couponDiscount(coupon({ discount: 1000, products: [2, 3, 99] }), order(parts)), 600);
  assert.equal(
    couponDiscount(
      coupon({ discount: 1000, products: [2] }),
      order([
        [2, 500],
        [1, 1000],
        [2, 505],
      ]),
    ),
    100,
    'every matching part counts',
  );
  assert.equal(
    couponDiscount(coupon({ is_fixed: 1, discount: 5000, products: [2] }), order(parts)),
    2000,
    'fixed: capped at the matching parts',
  );
  assert.equal(couponDiscount(coupon({ is_fixed: 1, discount: 500, products: [2] }), order(parts)), 500);
  assertRefused(() => couponDiscount(coupon({ products: [4, 5] }), order(parts)), 'is not valid for these products');
  assertRefused(() => couponDiscount(coupon({ products: [4] }), order([])), 'is not valid for these products');
  assert.equal(couponDiscount(coupon({ discount: 1000, products: [] }), order(parts)), 700, 'empty: every product');
});

test('restricted to gateways', () => {
  const restricted = coupon({ discount: 1000, gateways: ['balance', 'tipjar'] });
  assert.equal(couponDiscount(restricted, order([[1, 1000]], 'balance')), 100);
  assert.equal(couponDiscount(restricted, order([[1, 1000]], 'tipjar')), 100);
  assertRefused(() => couponDiscount(restricted, order([[1, 1000]], 'cardconnect')), 'is not valid for this gateway');
  assertRefused(() => couponDiscount(restricted, order([[1, 1000]], 'Balance')), 'is not valid for this gateway');
  assert.equal(
    couponDiscount(coupon({ discount: 1000 }), order([[1, 1000]], 'cardconnect')),
    100,
    'empty: every gateway',
  );
});

test('validity window: inclusive at both ends', () => {
  const windowed = coupon({ start_at: NOW - 1000, end_at: NOW + 1000 });
  assertRefused(() => couponDiscount(windowed, order([[1, 1000]], 'balance', NOW - 1001)), 'is not valid yet');
  assert.equal(couponDiscount(windowed, order([[1, 1000]], 'balance', NOW - 1000)), 100);
  assert.equal(couponDiscount(windowed, order([[1, 1000]], 'balance', NOW + 1000)), 100);
  assertRefused(() => couponDiscount(windowed, order([[1, 1000]], 'balance', NOW + 1001)), 'has expired');
  assert.equal(
    couponDiscount(coupon({ start_at: NOW - 1 }), order([[1, 1000]], 'balance', NOW + 10 ** 12)),
    100,
    'no end: never expires',
  );
  assert.equal(
    couponDiscount(coupon({ end_at: NOW + 1 }), order([[1, 1000]], 'balance', 0)),
    100,
    'no start: valid at once',
  );
  const instant = coupon({ start_at: NOW, end_at: NOW });
  assert.equal(couponDiscount(instant, order([[1, 1000]])), 100);
});

test('uses: exhausted once uses reach maxUses', () => {
  assert.equal(couponDiscount(coupon({ max_uses: 5, uses: 4 }), order([[1, 1000]])), 100);
  assertRefused(() => couponDiscount(coupon({ max_uses: 5, uses: 5 }), order([[1, 1000]])), 'has been used up');
  assertRefused(() => couponDiscount(coupon({ max_uses: 1, uses: 7 }), order([[1, 1000]])), 'has been used up');
  assert.equal(couponDiscount(coupon({ max_uses: null, uses: 1_000_000 }), order([[1, 1000]])), 100);
});

test('reasons come in a fixed order: not started, expired, exhausted, products, gateway', () => {
  const everythingWrong = { max_uses: 1, uses: 1, products: [9], gateways: ['tipjar'] };
  assertRefused(
    () => couponDiscount(coupon({ ...everythingWrong, start_at: NOW + 1 }), order([[1, 1000]])),
    'is not valid yet',
  );
  assertRefused(
    () => couponDiscount(coupon({ ...everythingWrong, end_at: NOW - 1 }), order([[1, 1000]])),
    'has expired',
  );
  assertRefused(() => couponDiscount(coupon(everythingWrong), order([[1, 1000]])), 'has been used up');
  assertRefused(
    () => couponDiscount(coupon({ ...everythingWrong, uses: 0 }), order([[1, 1000]])),
    'is not valid for these products',
  );
  assertRefused(
    () => couponDiscount(coupon({ ...everythingWrong, uses: 0 }), order([[9, 1000]])),
    'is not valid for this gateway',
  );
});

test('the calculator does not touch its arguments', () => {
  const c = coupon({ discount: 2500, products: [1] });
  const o = order([
    [1, 1000],
    [2, 1000],
  ]);
  const before = JSON.stringify([c, o]);
  assert.equal(couponDiscount(c, o), 250);
  assert.equal(couponDiscount(c, o), 250);
  assert.equal(JSON.stringify([c, o]), before);
});

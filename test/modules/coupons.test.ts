import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  claimCouponUse,
  findCouponByCode,
  releaseCouponUse,
  rescaleFixedDiscounts,
} from '../../src/modules/coupons/service.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { productBody } from '../helpers/owner-operations.js';

async function setup(t: Parameters<typeof build>[0]) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const base = `/self/${shop.id}`;
  const product = async (title: string) => assertOk(await api.post(`${base}/v2/products`, productBody(title)));
  const storedRow = (id: number) =>
    app.db.kysely.selectFrom('coupons').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return { app, api, shopId: shop.id as number, base, product, storedRow };
}

const percent = (name: string, extra: object = {}) => ({ name, discount: 10, isFixed: false, ...extra });

test('coupons: create, read, list, replace and delete', async (t) => {
  const { api, base, product, storedRow } = await setup(t);
  const a = await product('Alpha');
  const b = await product('Beta');

  const summer = assertOk(
    await api.post(`${base}/coupons`, {
      name: 'Summer-2026',
      note: 'Newsletter',
      discount: 12.34,
      isFixed: false,
      startDate: '2026-06-01T00:00:00+02:00',
      endDate: '2026-08-31T23:59:59.999Z',
      restrictToProducts: [b.id, a.id],
      restrictToGateways: ['balance', 'tipjar'],
      maxUses: 100,
    }),
  );
  assert.deepEqual(
    { ...summer, createdAt: undefined, updatedAt: undefined },
    {
      id: summer.id,
      name: 'Summer-2026',
      note: 'Newsletter',
      discount: 12.34,
      isFixed: false,
      currency: null,
      startDate: '2026-05-31T22:00:00.000Z',
      endDate: '2026-08-31T23:59:59.999Z',
      restrictToProducts: [b.id, a.id],
      restrictToGateways: ['balance', 'tipjar'],
      maxUses: 100,
      uses: 0,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  assert.match(summer.createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
  const row = await storedRow(summer.id);
  assert.equal(row.discount, 1234, 'a percentage is stored as basis points');
  assert.equal(row.name_key, 'summer-2026');
  assert.deepEqual(assertOk(await api.get(`${base}/coupons/${summer.id}`)), summer);

  const fixed = assertOk(await api.post(`${base}/coupons`, { name: 'FIVE_OFF', discount: 5.5, isFixed: true }));
  assert.deepEqual(
    [fixed.discount, fixed.currency, fixed.note, fixed.startDate, fixed.endDate, fixed.maxUses],
    [5.5, 'USD', null, null, null, null],
  );
  assert.deepEqual([fixed.restrictToProducts, fixed.restrictToGateways], [[], []]);
  assert.equal((await storedRow(fixed.id)).discount, 550, 'a fixed discount is stored in minor units');
  const third = assertOk(await api.post(`${base}/coupons`, percent('welcome', { discount: 0.29 })));
  assert.equal(third.discount, 0.29);
  assert.equal((await storedRow(third.id)).discount, 29);

  const list = assertOk(await api.get(`${base}/coupons`));
  assert.deepEqual(
    list.items.map((c: { id: number }) => c.id),
    [third.id, fixed.id, summer.id],
    'newest first',
  );
  assert.deepEqual(list.items[2], summer);
  assert.deepEqual(
    assertOk(await api.get(`${base}/coupons?searchString=off`)).items.map((c: { id: number }) => c.id),
    [fixed.id],
  );
  assert.deepEqual(
    assertOk(await api.get(`${base}/coupons?searchString=newsletter`)).items,
    [],
    'the search is on the code only',
  );
  const paged = assertOk(await api.get(`${base}/coupons?pageSize=2&pageNumber=2`));
  assert.deepEqual(
    [paged.items.length, paged.totalCount, paged.totalPages, paged.pageNumber, paged.pageSize],
    [1, 3, 2, 2, 2],
  );

  // Full update: what is omitted goes back to its default; the code may change case.
  const replaced = assertOk(
    await api.put(`${base}/coupons/${summer.id}`, { name: 'SUMMER-2026', discount: 3, isFixed: true }),
  );
  assert.deepEqual(
    { ...replaced, updatedAt: undefined },
    {
      id: summer.id,
      name: 'SUMMER-2026',
      note: null,
      discount: 3,
      isFixed: true,
      currency: 'USD',
      startDate: null,
      endDate: null,
      restrictToProducts: [],
      restrictToGateways: [],
      maxUses: null,
      uses: 0,
      createdAt: summer.createdAt,
      updatedAt: undefined,
    },
  );

  assert.deepEqual(assertOk(await api.delete(`${base}/coupons/${summer.id}`)), { id: summer.id, deleted: true });
  assertError(await api.get(`${base}/coupons/${summer.id}`), 404, 'not_found');
  assertError(await api.delete(`${base}/coupons/${summer.id}`), 404, 'not_found');
  assert.equal(assertOk(await api.get(`${base}/coupons`)).totalCount, 2);
});

test('fixed discounts follow the digits of the shop currency', async (t) => {
  const { api, base } = await setup(t);
  assertOk(await api.put(`${base}/settings/currency`, { currency: 'JPY' }));
  const res = await api.post(`${base}/coupons`, { name: 'YEN', discount: 5.5, isFixed: true });
  assertError(res, 400, 'validation_error');
  assert.deepEqual(res.body.errors, ['discount: must have at most 0 decimals in JPY']);
  const yen = assertOk(await api.post(`${base}/coupons`, { name: 'YEN', discount: 500, isFixed: true }));
  assert.deepEqual([yen.discount, yen.currency], [500, 'JPY']);
  // A percentage has no currency: 12.5 % stays 12.5 % whatever the shop sells in.
  assert.equal(assertOk(await api.post(`${base}/coupons`, percent('HALF', { discount: 12.5 }))).discount, 12.5);
});

test('rescaleFixedDiscounts keeps the major-unit number of fixed discounts, as prices do', async (t) => {
  const { app, api, shopId, base, storedRow } = await setup(t);
  const fixed = assertOk(await api.post(`${base}/coupons`, { name: 'FIXED', discount: 5.5, isFixed: true }));
  const pct = assertOk(await api.post(`${base}/coupons`, percent('PCT', { discount: 12.5 })));
  await rescaleFixedDiscounts(app.db.kysely, shopId, 'USD', 'JPY', app.ctx.clock.now());
  assert.equal((await storedRow(fixed.id)).discount, 6, '5.50 USD → 6 JPY, rounded half up');
  assert.equal((await storedRow(pct.id)).discount, 1250, 'percentages are left alone');
  await rescaleFixedDiscounts(app.db.kysely, shopId, 'JPY', 'KWD', app.ctx.clock.now());
  assert.equal((await storedRow(fixed.id)).discount, 6000);
  await rescaleFixedDiscounts(app.db.kysely, shopId, 'KWD', 'BHD', app.ctx.clock.now());
  assert.equal((await storedRow(fixed.id)).discount, 6000, 'same digits: unchanged');
});

test('bad coupon bodies are a 400 naming the field and change nothing', async (t) => {
  const { app, api, base, product } = await setup(t);
  const own = await product('Alpha');
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  const foreign = assertOk(await other.post(`/self/${otherShop.id}/v2/products`, productBody('Foreign')));
  const kept = assertOk(
    await api.post(`${base}/coupons`, percent('KEPT', { restrictToProducts: [own.id], maxUses: 3 })),
  );

  const cases: [unknown, string][] = [
    [{}, 'name: is required'],
    [{ discount: 10, isFixed: false }, 'name: is required'],
    [percent(''), 'name: '],
    [percent('has space'), 'name: '],
    [percent('ÜBER'), 'name: '],
    [percent('x'.repeat(65)), 'name: '],
    [{ ...percent('N'), name: 5 }, 'name: must be string'],
    [{ name: 'N', isFixed: false }, 'discount: is required'],
    [{ name: 'N', discount: '10', isFixed: false }, 'discount: must be number'],
    [{ name: 'N', discount: 10 }, 'isFixed: is required'],
    [{ name: 'N', discount: 10, isFixed: 'yes' }, 'isFixed: must be boolean'],
    [percent('N', { discount: 0 }), 'discount: '],
    [percent('N', { discount: -5 }), 'discount: '],
    [percent('N', { discount: 100.01 }), 'discount: must be at most 100 for a percentage'],
    [percent('N', { discount: 1.234 }), 'discount: must have at most 2 decimals for a percentage'],
    [percent('N', { discount: 0.295 }), 'discount: must have at most 2 decimals for a percentage'],
    [{ name: 'N', discount: 1.234, isFixed: true }, 'discount: must have at most 2 decimals in USD'],
    [{ name: 'N', discount: 2_000_000_000, isFixed: true }, 'discount: '],
    [percent('N', { note: 'x'.repeat(501) }), 'note: '],
    [percent('N', { startDate: 'tomorrow' }), 'startDate: '],
    [percent('N', { startDate: '2026-06-01T00:00:00+05' }), 'startDate: '],
    [percent('N', { startDate: '2026-13-01' }), 'startDate: must be a real date'],
    [percent('N', { startDate: '2026-02-29' }), 'startDate: must be a real date'],
    [percent('N', { startDate: '0000-00-00' }), 'startDate: must be a real date'],
    [percent('N', { endDate: 'June 1st' }), 'endDate: '],
    [
      percent('N', { startDate: '2026-06-02T00:00:00Z', endDate: '2026-06-01T23:59:59Z' }),
      'endDate: must not be before startDate',
    ],
    [percent('N', { restrictToProducts: 'all' }), 'restrictToProducts: must be array'],
    [percent('N', { restrictToProducts: [0] }), 'restrictToProducts[0]: '],
    [percent('N', { restrictToProducts: [own.id, 999999] }), 'restrictToProducts[1]: is not a product of this shop'],
    [percent('N', { restrictToProducts: [foreign.id] }), 'restrictToProducts[0]: is not a product of this shop'],
    [percent('N', { restrictToProducts: [own.id, own.id] }), 'restrictToProducts: must not list an id twice'],
    [percent('N', { restrictToGateways: ['paypal'] }), 'restrictToGateways[0]: must be one of: '],
    [percent('N', { restrictToGateways: ['balance', 'balance'] }), 'restrictToGateways: '],
    [percent('N', { maxUses: 0 }), 'maxUses: '],
    [percent('N', { maxUses: 1.5 }), 'maxUses: '],
    [percent('N', { maxUses: '5' }), 'maxUses: '],
  ];
  for (const [body, error] of cases) {
    for (const res of [await api.post(`${base}/coupons`, body), await api.put(`${base}/coupons/${kept.id}`, body)]) {
      assertError(res, 400, 'validation_error');
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith(error)),
        `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
  const list = assertOk(await api.get(`${base}/coupons`));
  assert.equal(list.totalCount, 1, 'nothing was created');
  assert.deepEqual(list.items[0], kept, 'nothing was changed');
  assert.equal(assertOk(await other.get(`/self/${otherShop.id}/coupons`)).totalCount, 0);
});

test('codes are unique per shop without regard to case: 409', async (t) => {
  const { app, api, base } = await setup(t);
  const summer = assertOk(await api.post(`${base}/coupons`, percent('SUMMER')));
  const winter = assertOk(await api.post(`${base}/coupons`, percent('winter')));
  for (const res of [
    await api.post(`${base}/coupons`, percent('summer')),
    await api.post(`${base}/coupons`, percent('Winter', { isFixed: true })),
    await api.put(`${base}/coupons/${winter.id}`, percent('Summer')),
  ]) {
    assertError(res, 409, 'conflict');
    assert.deepEqual(res.body.errors, ['name: is already taken']);
  }
  assert.equal(assertOk(await api.get(`${base}/coupons/${winter.id}`)).name, 'winter');
  // Its own code, in another case, is not a conflict.
  assert.equal(assertOk(await api.put(`${base}/coupons/${summer.id}`, percent('Summer'))).name, 'Summer');
  // Another shop may use the same code.
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  assertOk(await other.post(`/self/${otherShop.id}/coupons`, percent('SUMMER')));
});

test('maxUses may not drop below the uses already taken: 409', async (t) => {
  const { app, api, shopId, base } = await setup(t);
  const coupon = assertOk(await api.post(`${base}/coupons`, percent('LIMITED', { maxUses: 10 })));
  for (let i = 0; i < 3; i++) assert.equal(await claimCouponUse(app.db.kysely, shopId, coupon.id), true);

  const res = await api.put(`${base}/coupons/${coupon.id}`, percent('LIMITED', { maxUses: 2 }));
  assertError(res, 409, 'conflict');
  assert.deepEqual(res.body.errors, ['maxUses: must not be below the current uses (3)']);
  const current = assertOk(await api.get(`${base}/coupons/${coupon.id}`));
  assert.deepEqual([current.maxUses, current.uses], [10, 3]);

  const lowered = assertOk(
    await api.put(`${base}/coupons/${coupon.id}`, percent('LIMITED', { maxUses: 3, note: 'full' })),
  );
  assert.deepEqual([lowered.maxUses, lowered.uses, lowered.note], [3, 3, 'full'], 'uses survive a full update');
  assert.equal(await claimCouponUse(app.db.kysely, shopId, coupon.id), false);
  assert.equal(assertOk(await api.put(`${base}/coupons/${coupon.id}`, percent('LIMITED'))).maxUses, null);
});

test('unknown coupon ids are a 404, bad ones a 400', async (t) => {
  const { app, api, base } = await setup(t);
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  const foreign = assertOk(await other.post(`/self/${otherShop.id}/coupons`, percent('THEIRS')));
  for (const id of [999999, foreign.id]) {
    const url = `${base}/coupons/${id}`;
    assertError(await api.get(url), 404, 'not_found');
    assertError(await api.put(url, percent('MINE')), 404, 'not_found');
    assertError(await api.delete(url), 404, 'not_found');
  }
  assert.equal(assertOk(await other.get(`/self/${otherShop.id}/coupons/${foreign.id}`)).name, 'THEIRS');
  assert.equal(assertOk(await api.get(`${base}/coupons`)).totalCount, 0);
  for (const id of ['x', '0', '-3', '1.5', '2147483648']) {
    const res = await api.get(`${base}/coupons/${id}`);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^couponId: /);
  }
  assertError(await api.get(`${base}/coupons?pageSize=101`), 400, 'validation_error');
});

test('a product deleted after it was put on a coupon stays accepted on that coupon', async (t) => {
  const { api, base, product } = await setup(t);
  const a = await product('Alpha');
  const b = await product('Beta');
  const coupon = assertOk(await api.post(`${base}/coupons`, percent('BOTH', { restrictToProducts: [a.id, b.id] })));
  assertOk(await api.delete(`${base}/products/${a.id}`));
  const read = assertOk(await api.get(`${base}/coupons/${coupon.id}`));
  assert.deepEqual(read.restrictToProducts, [a.id, b.id], 'still shown: an empty list would mean every product');
  assert.deepEqual(
    assertOk(
      await api.put(`${base}/coupons/${coupon.id}`, {
        ...percent('BOTH'),
        restrictToProducts: read.restrictToProducts,
        note: 'kept',
      }),
    ).note,
    'kept',
  );
  const res = await api.post(`${base}/coupons`, percent('NEW', { restrictToProducts: [a.id] }));
  assertError(res, 400, 'validation_error');
  assert.deepEqual(res.body.errors, ['restrictToProducts[0]: is not a product of this shop']);
});

test('findCouponByCode ignores case and stays in its shop', async (t) => {
  const { app, api, shopId, base } = await setup(t);
  const coupon = assertOk(await api.post(`${base}/coupons`, percent('Black-Friday')));
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  for (const code of ['Black-Friday', 'BLACK-FRIDAY', 'black-friday']) {
    assert.equal((await findCouponByCode(app.db.kysely, shopId, code))?.id, coupon.id);
  }
  assert.equal(await findCouponByCode(app.db.kysely, shopId, 'black_friday'), undefined);
  assert.equal(await findCouponByCode(app.db.kysely, shopId, 'black-friday '), undefined);
  assert.equal(await findCouponByCode(app.db.kysely, otherShop.id, 'black-friday'), undefined);
});

test('claimCouponUse: 20 parallel claims on maxUses 5 take exactly 5 uses', async (t) => {
  const { app, api, shopId, base, storedRow } = await setup(t);
  const db = app.db.kysely;
  const coupon = assertOk(await api.post(`${base}/coupons`, percent('RUSH', { maxUses: 5 })));
  const claims = await Promise.all(Array.from({ length: 20 }, () => claimCouponUse(db, shopId, coupon.id)));
  assert.equal(claims.filter(Boolean).length, 5);
  assert.equal((await storedRow(coupon.id)).uses, 5);
  assert.equal(assertOk(await api.get(`${base}/coupons/${coupon.id}`)).uses, 5);

  // Released uses can be claimed again, concurrently too; uses never go below zero.
  await Promise.all([releaseCouponUse(db, shopId, coupon.id), releaseCouponUse(db, shopId, coupon.id)]);
  assert.equal((await storedRow(coupon.id)).uses, 3);
  const again = await Promise.all(Array.from({ length: 10 }, () => claimCouponUse(db, shopId, coupon.id)));
  assert.equal(again.filter(Boolean).length, 2);
  assert.equal((await storedRow(coupon.id)).uses, 5);
  await Promise.all(Array.from({ length: 8 }, () => releaseCouponUse(db, shopId, coupon.id)));
  assert.equal((await storedRow(coupon.id)).uses, 0);

  // Unlimited coupons always give a use; another shop's id never does.
  const open = assertOk(await api.post(`${base}/coupons`, percent('OPEN')));
  assert.deepEqual(
    await Promise.all(Array.from({ length: 12 }, () => claimCouponUse(db, shopId, open.id))),
    Array(12).fill(true),
  );
  assert.equal((await storedRow(open.id)).uses, 12);
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  assert.equal(await claimCouponUse(db, otherShop.id, open.id), false);
  await releaseCouponUse(db, otherShop.id, open.id);
  assert.equal((await storedRow(open.id)).uses, 12);
});

test('coupon dates take a bare date as a whole day in the shop timezone', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  assertOk(await api.put(`/self/${shop.id}/settings/timezone`, { utcTimezoneOffset: 120 }));
  const coupon = assertOk(
    await api.post(`/self/${shop.id}/coupons`, {
      name: 'DAYS',
      discount: 1,
      isFixed: true,
      startDate: '2030-01-01',
      endDate: '2030-01-31',
    }),
  );
  assert.equal(coupon.startDate, '2029-12-31T22:00:00.000Z');
  assert.equal(coupon.endDate, '2030-01-31T21:59:59.999Z');
  const local = assertOk(
    await api.post(`/self/${shop.id}/coupons`, {
      name: 'LOCAL',
      discount: 1,
      isFixed: true,
      startDate: '2030-01-01T10:00:00',
    }),
  );
  assert.equal(local.startDate, '2030-01-01T08:00:00.000Z', 'a date-time without offset is shop time');
  const backwards = await api.post(`/self/${shop.id}/coupons`, {
    name: 'BACK',
    discount: 1,
    isFixed: true,
    startDate: '2030-01-01',
    endDate: '2029-01-01',
  });
  assertError(backwards, 400, 'validation_error');
  assert.deepEqual(backwards.body.errors, ['endDate: must not be before startDate']);
});

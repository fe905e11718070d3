import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currencyCodes, currencyDigits } from '../../src/schemas/currencies.js';
import { fromMinorUnits, toMinorUnits, toScaledInteger } from '../../src/schemas/money.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/** The major-unit number as written in decimal, then parsed: what a reader of the JSON expects. */
function decimal(minor: number, digits: number): number {
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return Number(
    `${sign}${text.slice(0, text.length - digits)}${digits > 0 ? '.' : ''}${text.slice(text.length - digits)}`,
  );
}

test('fromMinorUnits gives the decimal amount exactly, in every currency and far into the large amounts', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
  const samples = [0, 1, 5, 9, 10, 29, 99, 100, 101, 999, 1005, 12345, 99_999_999, 2 ** 31, Number.MAX_SAFE_INTEGER];
  for (let i = 0; i < 3000; i++) samples.push(Math.floor(random() * 10 ** (1 + Math.floor(random() * 15))));
  for (const currency of currencyCodes) {
    const digits = currencyDigits(currency);
    for (const minor of samples) {
      for (const value of minor === 0 ? [0, -0] : [minor, -minor]) {
        const expected = decimal(value, digits);
        assert.equal(fromMinorUnits(value, currency), expected, `${value} minor units of ${currency}`);
        if (value > 0 && value < 2 ** 40)
          assert.equal(
            toMinorUnits(fromMinorUnits(value, currency), currency, 'amount'),
            value,
            `${value} ${currency} round trip`,
          );
      }
    }
  }
});

test('toMinorUnits refuses more decimals than the currency has, exactly: no tolerance, whatever the float noise', () => {
  assert.equal(
    toMinorUnits(0.29, 'USD', 'amount'),
    29,
    '0.29 * 100 is 28.999999999999996 in binary, but 0.29 has 2 decimals',
  );
  assert.equal(toMinorUnits(9.99, 'USD', 'amount'), 999);
  assert.equal(toMinorUnits(1e2, 'USD', 'amount'), 10000);
  assert.equal(toMinorUnits(1.005, 'KWD', 'amount'), 1005);
  assert.equal(toMinorUnits(1e-3, 'KWD', 'amount'), 1);
  assert.equal(toMinorUnits(12, 'JPY', 'amount'), 12);
  assert.equal(toMinorUnits(1e9, 'KWD', 'amount'), 1e12);
  assert.equal(toMinorUnits(-0.29, 'USD', 'amount'), -29);
  assert.throws(() => toMinorUnits(0.295, 'USD', 'amount'), {
    errors: ['amount: must have at most 2 decimals in USD'],
  });
  assert.throws(() => toMinorUnits(0.00000001, 'USD', 'amount'), {
    errors: ['amount: must have at most 2 decimals in USD'],
  });
  assert.throws(() => toMinorUnits(9.999999999, 'USD', 'amount'), {
    errors: ['amount: must have at most 2 decimals in USD'],
  });
  assert.throws(() => toMinorUnits(100.0000001, 'USD', 'amount'), {
    errors: ['amount: must have at most 2 decimals in USD'],
  });
  assert.throws(() => toMinorUnits(1.5, 'JPY', 'price'), { errors: ['price: must have at most 0 decimals in JPY'] });
  assert.throws(() => toMinorUnits(1.0005, 'KWD', 'price'), { errors: ['price: must have at most 3 decimals in KWD'] });
});

test('toScaledInteger reads the decimals of the shortest form, exponents included', () => {
  assert.equal(toScaledInteger(12.34, 2), 1234);
  assert.equal(toScaledInteger(0.07, 2), 7);
  assert.equal(toScaledInteger(100, 2), 10000);
  assert.equal(toScaledInteger(1e15, 0), 1e15);
  assert.equal(toScaledInteger(1e-7, 7), 1);
  assert.equal(toScaledInteger(1e-7, 6), null);
  assert.equal(toScaledInteger(12.345, 2), null);
  assert.equal(toScaledInteger(-0, 2), 0);
  assert.ok(!Object.is(toScaledInteger(-0, 2), -0));
  assert.throws(() => toScaledInteger(Number.NaN, 2), RangeError);
  assert.throws(
    () => toScaledInteger(1e21, 0),
    RangeError,
    '"1e+21": the schemas bound amounts far below a safe integer',
  );
});

test('amounts and percentages finer than allowed are a 400 naming the field and write nothing; exact ones are kept exactly', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const self = `/self/${shop.shopId}`;
  assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'buyer@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
    }),
  );
  const buyer = assertOk(await api.get(`${self}/customers`)).items[0];
  const customer = `${self}/customers/${buyer.id}`;
  const db = app.db.kysely;
  const stored = async () => ({
    entries: (await db.selectFrom('balance_entries').select('id').execute()).length,
    products: (await db.selectFrom('products').select('id').execute()).length,
    coupons: (await db.selectFrom('coupons').select('id').execute()).length,
    product: assertOk(await api.get(`${self}/v2/products/${shop.productId}`)),
    balance: assertOk(await api.get(customer)).balance,
    affiliate: assertOk(await api.get(`${self}/settings`)).affiliatePercentage,
  });
  const before = await stored();
  const product = (amount: number, gatewayPrice?: number) => ({
    title: 'Priced',
    description: 'd',
    variants: [
      {
        title: 'V',
        priceDetails: { amount },
        productType: 'service',
        asService: { text: 't' },
        ...(gatewayPrice === undefined ? {} : { gateways: [{ gateway: 'tipjar', price: gatewayPrice }] }),
      },
    ],
  });
  const usd = 'must have at most 2 decimals in USD';
  const refused: [string, string, unknown, string][] = [
    ['POST', `${customer}/balance/add`, { amount: 0.00000001 }, `amount: ${usd}`],
    ['POST', `${customer}/balance/add`, { amount: 0.295 }, `amount: ${usd}`],
    ['POST', `${customer}/balance/remove`, { amount: 0.001 }, `amount: ${usd}`],
    ['POST', `${self}/v2/products`, product(9.999999999), `variants[0].priceDetails.amount: ${usd}`],
    ['POST', `${self}/v2/products`, product(0.295), `variants[0].priceDetails.amount: ${usd}`],
    ['POST', `${self}/v2/products`, product(1, 0.999999999), `variants[0].gateways[0].price: ${usd}`],
    ['PUT', `${self}/v2/products/${shop.productId}`, product(10.0000001), `variants[0].priceDetails.amount: ${usd}`],
    ['POST', `${self}/coupons`, { name: 'FIXED', discount: 0.00000001, isFixed: true }, `discount: ${usd}`],
    [
      'POST',
      `${self}/coupons`,
      { name: 'PCT', discount: 12.3400001, isFixed: false },
      'discount: must have at most 2 decimals for a percentage',
    ],
    [
      'POST',
      `${self}/coupons`,
      { name: 'TINY', discount: 1e-8, isFixed: false },
      'discount: must have at most 2 decimals for a percentage',
    ],
    ['PUT', `${self}/settings/affiliate`, { percentage: 12.3400000001 }, 'percentage: must have at most 2 decimals'],
    ['PUT', `${self}/settings/affiliate`, { percentage: 1e-8 }, 'percentage: must have at most 2 decimals'],
  ];
  for (const [method, url, body, error] of refused) {
    const res = await api.request(method, url, body);
    assertError(res, 400, 'validation_error');
    assert.deepEqual(res.body.errors, [error], `${method} ${url} ${JSON.stringify(body)}`);
  }
  assert.deepEqual(await stored(), before, 'nothing was written');

  // Exact amounts are kept exactly, 1e2 written as such in the JSON included.
  const raw = await app.inject({
    method: 'POST',
    url: `${customer}/balance/add`,
    headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
    payload: '{"amount":1e2}',
  });
  assert.equal(raw.json().data.balance, 100);
  assert.equal(assertOk(await api.post(`${customer}/balance/add`, { amount: 0.29 })).balance, 100.29);
  const cheap = assertOk(await api.post(`${self}/v2/products`, product(0.29, 9.99)));
  assert.equal(cheap.variants[0].priceDetails.amount, 0.29);
  assert.equal(cheap.variants[0].gateways[0].price, 9.99);
  const row = await db
    .selectFrom('product_variants')
    .select('price')
    .where('id', '=', cheap.variants[0].id)
    .executeTakeFirstOrThrow();
  assert.equal(row.price, 29);
  assert.equal(
    assertOk(await api.post(`${self}/coupons`, { name: 'PCT', discount: 0.29, isFixed: false })).discount,
    0.29,
  );
  assert.equal(assertOk(await api.put(`${self}/settings/affiliate`, { percentage: 0.29 })).affiliatePercentage, 0.29);
  assert.equal(
    (await db.selectFrom('shops').select('affiliate_bps').where('id', '=', shop.shopId).executeTakeFirstOrThrow())
      .affiliate_bps,
    29,
  );

  // A currency without minor units takes whole amounts only.
  assertOk(await api.put(`${self}/settings/currency`, { currency: 'JPY' }));
  const yen = await api.post(`${self}/v2/products`, product(1.5));
  assertError(yen, 400, 'validation_error');
  assert.deepEqual(yen.body.errors, ['variants[0].priceDetails.amount: must have at most 0 decimals in JPY']);
  assert.equal(assertOk(await api.post(`${self}/v2/products`, product(1e2))).variants[0].priceDetails.amount, 100);
});

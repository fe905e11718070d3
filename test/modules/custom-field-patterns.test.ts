import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/** A shop selling one product whose variant asks for one custom field with `regex`. */
async function setup(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const url = `/self/${shop.shopId}/v2/products/${shop.productId}`;
  const variant = (regex: string) => ({
    id: shop.serviceVariant,
    title: 'Support',
    priceDetails: { amount: 5 },
    productType: 'service',
    asService: { text: 'Support text', stock: 10 },
    customFields: [{ id: 'code', name: 'Code', type: 'text', required: true, regex }],
  });
  const setPattern = (regex: string) =>
    api.put(url, { title: 'Game Key', description: 'A key', variants: [variant(regex)] });
  const checkout = (code: string) =>
    app
      .inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.shopId}/invoices`,
        payload: {
          customerEmail: 'buyer@example.com',
          gateway: 'tipjar',
          parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
          customFields: { code },
        },
      })
      .then((r) => ({ status: r.statusCode, body: r.json() }));
  return { app, api, ...shop, url, setPattern, checkout };
}

test('a pattern RE2 cannot run (lookaround, backreference, too large) is a 400 naming the field on create, update and bulk', async (t) => {
  const { api, shopId, productId, url, setPattern } = await setup(t);
  const before = assertOk(await api.get(url));
  // Each of these compiles as a JavaScript RegExp: only RE2 refuses them.
  for (const regex of ['^(?=.*\\d)\\w+$', '(?<!x)y', '^(a)\\1$', '\\pL{1000}\\pL{1000}']) {
    const updated = await setPattern(regex);
    assertError(updated, 400, 'validation_error');
    assert.match(
      updated.body.errors[0],
      /^variants\[0\]\.customFields\[0\]\.regex: is (not an RE2 regular expression|too complex)/,
      regex,
    );

    const created = await api.post(`/self/${shopId}/v2/products`, {
      title: 'Other',
      description: 'd',
      variants: [
        {
          title: 'V',
          priceDetails: { amount: 1 },
          productType: 'serials',
          customFields: [{ name: 'Code', type: 'text', regex }],
        },
      ],
    });
    assertError(created, 400, 'validation_error');
    assert.ok(
      created.body.errors[0].startsWith('variants[0].customFields[0].regex: '),
      JSON.stringify(created.body.errors),
    );

    const bulk = await api.put(`/self/${shopId}/products/bulk/update/custom-fields`, {
      productIds: [productId],
      customFields: [{ name: 'Code', type: 'text', regex }],
    });
    assertError(bulk, 400, 'validation_error');
    assert.ok(bulk.body.errors[0].startsWith('customFields[0].regex: '), JSON.stringify(bulk.body.errors));
  }
  const tooLong = await setPattern('a'.repeat(501));
  assertError(tooLong, 400, 'validation_error');
  assert.ok(tooLong.body.errors[0].startsWith('variants[0].customFields[0].regex: '));
  assert.deepEqual(assertOk(await api.get(url)), before, 'nothing changed');
  assert.equal(assertOk(await api.get(`/self/${shopId}/v2/products`)).totalCount, 1);
});

test('checkout checks answers with RE2 semantics, and a catastrophic pattern answers at once', async (t) => {
  const { app, setPattern, checkout } = await setup(t);
  // `\pL` is "a letter" in RE2; a JavaScript RegExp without the u flag reads it as the letter p.
  assertOk(await setPattern('^\\pL+$'));
  assertOk(await checkout('Straße'));
  const digits = await checkout('Stra1e');
  assertError(digits, 400, 'validation_error');
  assert.deepEqual(digits.body.errors, ['customFields.code: does not match the required format']);
  // `\z` is the end of the text in RE2; in a JavaScript RegExp it is the letter z.
  assertOk(await setPattern('^ab\\z'));
  assertOk(await checkout('ab'));
  assertError(await checkout('abz'), 400, 'validation_error');

  // Exponential for a backtracking engine (5.5 s for 30 characters, doubling with each more);
  // linear for RE2. /health is answered beside it.
  assertOk(await setPattern('^(a+)+$'));
  const [refused, health] = await Promise.all([
    checkout(`${'a'.repeat(30)}!`),
    app.inject({ method: 'GET', url: '/health' }),
  ]);
  assertError(refused, 400, 'validation_error');
  assert.deepEqual(refused.body.errors, ['customFields.code: does not match the required format']);
  assert.equal(health.statusCode, 200);
  assertOk(await checkout('a'.repeat(30)));
  const longest = await checkout(`${'a'.repeat(1999)}!`);
  assertError(longest, 400, 'validation_error');
  assert.deepEqual(longest.body.errors, ['customFields.code: does not match the required format']);
  const tooLong = await checkout('a'.repeat(2001));
  assertError(tooLong, 400, 'validation_error');
  assert.ok(
    tooLong.body.errors.some((e: string) => e.startsWith('customFields.code: ')),
    JSON.stringify(tooLong.body.errors),
  );
});

test('a pattern stored before RE2 that RE2 cannot compile refuses the order with a 422 naming the field until the owner fixes it', async (t) => {
  const { app, shopId, serviceVariant, setPattern, checkout } = await setup(t);
  assertOk(await setPattern('^\\d+$'));
  // As a database written by an earlier version may hold it: a lookahead, valid JavaScript.
  const legacy = JSON.stringify([
    { id: 'code', name: 'Code', type: 'text', required: true, placeholder: null, regex: '^(?=\\d)\\w+$' },
  ]);
  await app.db.kysely
    .updateTable('product_variants')
    .set({ custom_fields: legacy })
    .where('shop_id', '=', shopId)
    .where('id', '=', serviceVariant)
    .execute();
  const refused = await checkout('123');
  assertError(refused, 422, 'unprocessable');
  assert.deepEqual(refused.body.errors, [
    "customFields.code: the shop's format for this field cannot be checked; the shop must correct it",
  ]);
  const invoices = await app.db.kysely.selectFrom('invoices').select('id').where('shop_id', '=', shopId).execute();
  assert.equal(invoices.length, 0, 'no invoice was created');
  assertOk(await setPattern('^\\d\\w*$'));
  assertOk(await checkout('123'));
});

test('what one checkout may spend matching patterns is bounded: answers past the budget are refused unmatched, naming the field', async (t) => {
  const { setPattern, checkout } = await setup(t);
  // About 1,000 RE2 instructions: a 2,000-letter answer would cost ~2,000,000 units (150 ms
  // measured), four times what a whole order may spend; 400 letters stay within it.
  assertOk(await setPattern('\\pL{990}'));
  const long = await checkout('a'.repeat(2000));
  assertError(long, 400, 'validation_error');
  assert.deepEqual(long.body.errors, [
    "customFields.code: is too long to be checked against the shop's format for it; shorten the answers of this order",
  ]);
  // Within the budget the pattern decides: 400 letters hold no run of 990.
  const short = await checkout('a'.repeat(400));
  assertError(short, 400, 'validation_error');
  assert.deepEqual(short.body.errors, ['customFields.code: does not match the required format']);
  assertOk(await setPattern('\\pL{300}'));
  assertOk(await checkout('a'.repeat(400)));
});

test('an answer is measured in characters as the document counts them (code points)', async (t) => {
  const { setPattern, checkout } = await setup(t);
  assertOk(await setPattern('^.+$'));
  // 1,500 emoji: 1,500 characters, 3,000 UTF-16 units; the schema allows 2,000 characters.
  assertOk(await checkout('😀'.repeat(1500)));
  assertError(await checkout('😀'.repeat(2001)), 400, 'validation_error');
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 21: `POST /self/{shopId}/v2/products/{productId}/variants/{variantId}/serials` appends keys
 * to a serials variant and says what it added, what it refused as a duplicate and what as
 * already sold.
 */
async function setup(t: TestContext) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: ['K1', 'K2', 'K3'] });
  const { shopId, productId, keysVariant } = shop;
  const url = (variantId = keysVariant, product = productId) =>
    `/self/${shopId}/v2/products/${product}/variants/${variantId}/serials`;
  const product = async () => assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`));
  const buy = async (quantity: number, email = 'buyer@example.com') =>
    assertOk(
      await api.post(`/v2/public/shops/${shopId}/invoices`, {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId, productVariantId: keysVariant, quantity }],
      }),
    );
  const serialRows = async () =>
    (
      await app.db.kysely
        .selectFrom('serials')
        .select(['value', 'status'])
        .where('variant_id', '=', keysVariant)
        .orderBy('id')
        .execute()
    ).map((r) => `${r.value}:${r.status}`);
  return { app, api, ...shop, url, product, buy, serialRows };
}

test('keys are appended; duplicates (in stock, reserved or repeated) and keys sold before are refused and named', async (t) => {
  const { app, api, url, product, buy, serialRows, shopId, productId } = await setup(t);
  const sold = await buy(1); // reserves K1
  assertOk(await api.post(`/self/${shopId}/invoices/${sold.id}/process`)); // K1 delivered
  await buy(1, 'other@example.com'); // K2 reserved by a pending invoice

  const answer = assertOk(await api.post(url(), { serials: ['  N1 ', 'K1', 'K2', 'K3', 'N2', 'N1', '', '   ', 'N3'] }));
  assert.deepEqual(answer, {
    added: ['N1', 'N2', 'N3'],
    duplicates: ['K2', 'K3', 'N1'],
    alreadySold: ['K1'],
    stock: 4,
  });
  const variant = (await product()).variants[0];
  assert.equal(variant.stock, 4, 'K3 and the three new keys');
  assert.deepEqual(variant.asSerials.serials, ['K3', 'N1', 'N2', 'N3']);
  assert.deepEqual(await serialRows(), [
    'K1:delivered',
    'K2:reserved',
    'K3:available',
    'N1:available',
    'N2:available',
    'N3:available',
  ]);

  // A text, split on the delimiter (newlines by default, CRLF too), trimmed, blanks skipped.
  assert.deepEqual(assertOk(await api.post(url(), { serials: 'T1\r\nT2\n\n  T3  \nN1\n' })), {
    added: ['T1', 'T2', 'T3'],
    duplicates: ['N1'],
    alreadySold: [],
    stock: 7,
  });
  assert.deepEqual(assertOk(await api.post(url(), { serials: 'C1, C2,,C1', delimiter: ',' })), {
    added: ['C1', 'C2'],
    duplicates: ['C1'],
    alreadySold: [],
    stock: 9,
  });
  // Nothing but blanks adds nothing and is no error.
  assert.deepEqual(assertOk(await api.post(url(), { serials: '\n \n' })), {
    added: [],
    duplicates: [],
    alreadySold: [],
    stock: 9,
  });

  // The storefront sees the new stock at once (the owner write emptied the cached page).
  const page = async () =>
    (await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}/listings` })).json().data.listings[0].product;
  const before = await page();
  assertOk(await api.post(url(), { serials: ['P1'] }));
  const after = await page();
  assert.equal(after.id, productId);
  assert.equal(after.stock, before.stock + 1);
});

test('a sold-out variant restocked sells again, and selling it out again is a new product.out_of_stock', async (t) => {
  const { app, api, url, buy, shopId, productId, keysVariant } = await setup(t);
  const outOfStock = async () =>
    (
      await app.db.kysely
        .selectFrom('events')
        .select('id')
        .where('shop_id', '=', shopId)
        .where('type', '=', 'product.out_of_stock')
        .execute()
    ).length;
  await buy(3);
  assert.equal(await outOfStock(), 1);
  assertError(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      customerEmail: 'late@example.com',
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
    }),
    422,
    'unprocessable',
  );
  assert.equal(assertOk(await api.post(url(), { serials: ['R1', 'R2'] })).stock, 2);
  const invoice = await buy(2, 'late@example.com');
  const done = assertOk(await api.post(`/self/${shopId}/invoices/${invoice.id}/process`));
  assert.deepEqual(done.parts[0].deliverables, ['R1', 'R2']);
  assert.equal(await outOfStock(), 2);
});

test('only a live serials variant of the product takes keys: other types are a 409, unknown ones a 404, too many a 400', async (t) => {
  const { api, url, product, shopId, productId, serviceVariant, keysVariant } = await setup(t);
  const wrongType = await api.post(url(serviceVariant), { serials: ['X'] });
  assertError(wrongType, 409, 'conflict');
  assert.deepEqual(wrongType.body.errors, ['variantId: is a service variant, not a serials one']);
  assertError(await api.post(url(999999), { serials: ['X'] }), 404, 'not_found');
  assertError(await api.post(url(keysVariant, 999999), { serials: ['X'] }), 404, 'not_found');
  const other = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Other',
      description: 'Another product',
      variants: [{ title: 'V', priceDetails: { amount: 1 }, productType: 'serials', asSerials: { serials: ['O1'] } }],
    }),
  );
  assertError(await api.post(url(keysVariant, other.id), { serials: ['X'] }), 404, 'not_found');
  // A variant removed from its product takes nothing.
  const full = await product();
  assertOk(
    await api.put(`/self/${shopId}/v2/products/${productId}`, {
      ...full,
      variants: full.variants.filter((v: { id: number }) => v.id !== keysVariant),
    }),
  );
  assertError(await api.post(url(keysVariant), { serials: ['X'] }), 404, 'not_found');
  const liveKeys = other.variants[0].id as number;
  const otherUrl = url(liveKeys, other.id);

  const tooMany = Array.from({ length: 10_001 }, (_, i) => `M${i}`);
  const arrayRefused = await api.post(otherUrl, { serials: tooMany });
  assertError(arrayRefused, 400, 'validation_error');
  assert.ok(arrayRefused.body.errors.some((e: string) => e.startsWith('serials')));
  const textRefused = await api.post(otherUrl, { serials: tooMany.join('\n') });
  assertError(textRefused, 400, 'validation_error');
  assert.deepEqual(textRefused.body.errors, [
    'serials: must hold at most 10000 serials in one call (this holds 10001)',
  ]);
  assertError(await api.post(otherUrl, { serials: `ok\n${'x'.repeat(2001)}` }), 400, 'validation_error');
  assertError(await api.post(otherUrl, { serials: [] }), 400, 'validation_error');
  assertError(await api.post(otherUrl, {}), 400, 'validation_error');
  assertError(await api.post(otherUrl, { serials: 'A', delimiter: '' }), 400, 'validation_error');
  // Exactly the cap is fine.
  const atCap = assertOk(await api.post(otherUrl, { serials: tooMany.slice(0, 10_000) }));
  assert.equal(atCap.added.length, 10_000);
  assert.equal(atCap.stock, 10_001);
  const refreshed = assertOk(await api.get(`/self/${shopId}/v2/products/${other.id}`));
  assert.equal(refreshed.variants[0].stock, 10_001);
});

test('two restocks with overlapping keys at once never put a key in stock twice', async (t) => {
  const { api, url, product, serialRows } = await setup(t);
  const first = Array.from({ length: 300 }, (_, i) => `S${i}`);
  const second = Array.from({ length: 300 }, (_, i) => `S${i + 150}`);
  for (let round = 0; round < 3; round++) {
    const batchA = first.map((s) => `${s}-${round}`);
    const batchB = second.map((s) => `${s}-${round}`);
    const [a, b] = await Promise.all([api.post(url(), { serials: batchA }), api.post(url(), { serials: batchB })]);
    const added = [...assertOk(a).added, ...assertOk(b).added];
    assert.equal(added.length, 450, 'each of the 450 distinct keys added once');
    assert.equal(new Set(added).size, 450);
    assert.equal(assertOk(a).duplicates.length + assertOk(b).duplicates.length, 150, 'the overlap is refused once');
  }
  const rows = await serialRows();
  assert.equal(rows.length, new Set(rows).size, 'no serial value stored twice');
  assert.equal((await product()).variants[0].stock, 3 + 3 * 450);
});

test("another account's key gets a 404 and adds nothing", async (t) => {
  const { app, url, product, productId, keysVariant } = await setup(t);
  const mallory = await owner(app);
  const malloryShop = await sellingShop(mallory);
  const before = await product();
  assertError(await mallory.post(url(), { serials: ['EVIL'] }), 404, 'not_found');
  assertError(
    await mallory.post(`/self/${malloryShop.shopId}/v2/products/${productId}/variants/${keysVariant}/serials`, {
      serials: ['EVIL'],
    }),
    404,
    'not_found',
  );
  // Her own product's id under her shop, but Alice's variant: not a variant of that product.
  assertError(
    await mallory.post(
      `/self/${malloryShop.shopId}/v2/products/${malloryShop.productId}/variants/${keysVariant}/serials`,
      { serials: ['EVIL'] },
    ),
    404,
    'not_found',
  );
  assert.deepEqual(await product(), before);
});

test('a key listed twice with duplicates kept is sold twice, to two buyers; with "remove duplicates" once', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  const api = await owner(app);
  // Reusable keys are a real use (a key meant to be shared): kept, each line is one unit of stock.
  const shared = await sellingShop(api, { serials: ['SHARED-KEY', 'SHARED-KEY'] });
  const deliveredTo = async (shop: typeof shared, email: string) => {
    const invoice = assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
      }),
    );
    return assertOk(await api.post(`/self/${shop.shopId}/invoices/${invoice.id}/process`)).parts[0].deliverables;
  };
  assert.deepEqual(await deliveredTo(shared, 'one@example.com'), ['SHARED-KEY']);
  assert.deepEqual(await deliveredTo(shared, 'two@example.com'), ['SHARED-KEY']);

  const unique = await sellingShop(api, { serials: ['ONCE-KEY'] });
  const { id, variants } = assertOk(await api.get(`/self/${unique.shopId}/v2/products/${unique.productId}`));
  const edited = assertOk(
    await api.put(`/self/${unique.shopId}/v2/products/${id}`, {
      title: 'Game Key',
      description: 'A key',
      variants: [
        {
          id: variants[0].id,
          title: 'Key',
          priceDetails: { amount: 9.99 },
          productType: 'serials',
          asSerials: { serials: ['ONCE-KEY', 'ONCE-KEY'], removeDuplicates: true },
        },
      ],
    }),
  );
  assert.equal(edited.variants[0].stock, 1);
  assert.deepEqual(await deliveredTo({ ...unique, keysVariant: variants[0].id }, 'one@example.com'), ['ONCE-KEY']);
  assertError(
    await api.post(`/v2/public/shops/${unique.shopId}/invoices`, {
      customerEmail: 'two@example.com',
      gateway: 'tipjar',
      parts: [{ productId: unique.productId, productVariantId: unique.keysVariant, quantity: 1 }],
    }),
    422,
    'unprocessable',
  );
});

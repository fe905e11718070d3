import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, type Client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { productBody } from '../helpers/owner-operations.js';

async function setup(t: Parameters<typeof build>[0]) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const base = `/self/${shop.id}`;
  const product = async (title: string) => assertOk(await api.post(`${base}/v2/products`, productBody(title)));
  return { app, api, shop, base, product };
}

/** Listing id per product id (`p<id>`) and group id (`g<id>`). */
async function listingIds(api: Client, base: string): Promise<Record<string, number>> {
  const items = assertOk(await api.get(`${base}/listings?pageSize=100`)).items;
  return Object.fromEntries(
    items.map((l: any) => [l.type === 'product' ? `p${l.product.id}` : `g${l.group.id}`, l.id]),
  );
}

test('categories: create, read, list, replace and delete', async (t) => {
  const { api, base, product } = await setup(t);
  const a = await product('Alpha');
  const b = await product('Beta');
  const c = await product('Gamma');
  const l = await listingIds(api, base);

  const category = assertOk(
    await api.post(`${base}/categories`, { name: '  Game keys ', listingIds: [l[`p${c.id}`], l[`p${a.id}`]] }),
  );
  assert.deepEqual(
    { ...category, createdAt: undefined, updatedAt: undefined },
    {
      id: category.id,
      name: 'Game keys',
      listingIds: [l[`p${c.id}`], l[`p${a.id}`]],
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  assert.match(category.updatedAt, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(assertOk(await api.get(`${base}/categories/${category.id}`)), category);

  const empty = assertOk(await api.post(`${base}/categories`, { name: 'Software' }));
  assert.deepEqual(empty.listingIds, []);
  // A listing may be in several categories.
  const shared = assertOk(
    await api.post(`${base}/categories`, {
      name: 'Everything',
      listingIds: [l[`p${a.id}`], l[`p${b.id}`], l[`p${c.id}`]],
    }),
  );

  const list = assertOk(await api.get(`${base}/categories`));
  assert.deepEqual(
    list.items.map((x: { id: number }) => x.id),
    [shared.id, empty.id, category.id],
    'newest first',
  );
  assert.deepEqual(list.items[2], category);
  assert.deepEqual(
    assertOk(await api.get(`${base}/categories?searchString=KEYS`)).items.map((x: { id: number }) => x.id),
    [category.id],
  );
  const paged = assertOk(await api.get(`${base}/categories?pageSize=2&pageNumber=2`));
  assert.deepEqual([paged.items.length, paged.totalCount, paged.totalPages], [1, 3, 2]);

  // Full update: the new order, and an omitted listingIds empties the category.
  const reordered = assertOk(
    await api.put(`${base}/categories/${category.id}`, {
      name: 'Keys',
      listingIds: [l[`p${a.id}`], l[`p${b.id}`], l[`p${c.id}`]],
    }),
  );
  assert.equal(reordered.name, 'Keys');
  assert.deepEqual(reordered.listingIds, [l[`p${a.id}`], l[`p${b.id}`], l[`p${c.id}`]]);
  assert.equal(reordered.createdAt, category.createdAt);
  assert.deepEqual(assertOk(await api.put(`${base}/categories/${category.id}`, { name: 'Keys' })).listingIds, []);

  assert.deepEqual(assertOk(await api.delete(`${base}/categories/${category.id}`)), { id: category.id, deleted: true });
  assertError(await api.get(`${base}/categories/${category.id}`), 404, 'not_found');
  assert.equal(assertOk(await api.get(`${base}/categories`)).totalCount, 2);
  // The listings stay.
  assert.equal(Object.keys(await listingIds(api, base)).length, 3);
  assert.deepEqual(assertOk(await api.get(`${base}/categories/${shared.id}`)).listingIds.length, 3);
});

test('categories lose listings that go away', async (t) => {
  const { api, base, product } = await setup(t);
  const a = await product('Alpha');
  const b = await product('Beta');
  const c = await product('Gamma');
  const group = assertOk(await api.post(`${base}/groups`, { title: 'Bundle' }));
  const l = await listingIds(api, base);
  const category = assertOk(
    await api.post(`${base}/categories`, {
      name: 'All',
      listingIds: [l[`g${group.id}`], l[`p${c.id}`], l[`p${b.id}`], l[`p${a.id}`]],
    }),
  );
  const current = async () => assertOk(await api.get(`${base}/categories/${category.id}`)).listingIds;

  assertOk(await api.delete(`${base}/products/${b.id}`));
  assert.deepEqual(await current(), [l[`g${group.id}`], l[`p${c.id}`], l[`p${a.id}`]]);
  // A product that joins a group loses its own listing, and so its place in the category.
  assertOk(await api.put(`${base}/groups/${group.id}`, { title: 'Bundle', productIds: [a.id] }));
  assert.deepEqual(await current(), [l[`g${group.id}`], l[`p${c.id}`]]);
  assertOk(await api.delete(`${base}/groups/${group.id}`));
  assert.deepEqual(await current(), [l[`p${c.id}`]]);
  assertOk(await api.post(`${base}/products/bulk/delete`, { productIds: [c.id] }));
  assert.deepEqual(await current(), []);
});

test('bad category bodies are a 400 naming the field and change nothing', async (t) => {
  const { app, api, base, product } = await setup(t);
  await product('Alpha');
  const [own] = Object.values(await listingIds(api, base));
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  assertOk(await other.post(`/self/${otherShop.id}/v2/products`, productBody('Foreign')));
  const foreign = assertOk(await other.get(`/self/${otherShop.id}/listings`)).items[0].id;
  const category = assertOk(await api.post(`${base}/categories`, { name: 'Kept', listingIds: [own] }));

  const cases: [unknown, string][] = [
    [{}, 'name: is required'],
    [{ name: '' }, 'name: '],
    [{ name: '    ' }, 'name: must not be blank'],
    [{ name: 'x'.repeat(101) }, 'name: '],
    [{ name: 5 }, 'name: must be string'],
    [{ name: 'N', listingIds: 'all' }, 'listingIds: must be array'],
    [{ name: 'N', listingIds: [-1] }, 'listingIds[0]: '],
    [{ name: 'N', listingIds: [own, 999999] }, 'listingIds[1]: is not a listing of this shop'],
    [{ name: 'N', listingIds: [foreign] }, 'listingIds[0]: is not a listing of this shop'],
    [{ name: 'N', listingIds: [own, own] }, 'listingIds: must not list an id twice'],
    [{ name: 'N', listingIds: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'listingIds: '],
  ];
  for (const [body, error] of cases) {
    for (const res of [
      await api.post(`${base}/categories`, body),
      await api.put(`${base}/categories/${category.id}`, body),
    ]) {
      assertError(res, 400, 'validation_error');
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith(error)),
        `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
  const list = assertOk(await api.get(`${base}/categories`));
  assert.equal(list.totalCount, 1, 'nothing was created');
  assert.deepEqual(list.items[0], category, 'nothing was changed');
  assert.deepEqual(assertOk(await other.get(`/self/${otherShop.id}/categories`)).items, []);
});

test('unknown category ids are a 404, bad ones a 400', async (t) => {
  const { api, base } = await setup(t);
  const missing = `${base}/categories/999999`;
  assertError(await api.get(missing), 404, 'not_found');
  assertError(await api.put(missing, { name: 'X' }), 404, 'not_found');
  assertError(await api.delete(missing), 404, 'not_found');
  for (const id of ['x', '-3', '1.5']) {
    const res = await api.delete(`${base}/categories/${id}`);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^categoryId: /);
  }
});

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
  const product = async (title: string, overrides: Record<string, unknown> = {}) =>
    assertOk(await api.post(`${base}/v2/products`, productBody(title, overrides)));
  return { app, api, shop, base, product };
}

/** The shop's listings as `p<productId>` / `g<groupId>` in order. */
async function listed(api: Client, base: string): Promise<string[]> {
  const page = assertOk(await api.get(`${base}/listings?pageSize=100`));
  return page.items.map((l: any) => (l.type === 'product' ? `p${l.product.id}` : `g${l.group.id}`));
}

test('listings follow products and groups', async (t) => {
  const { api, base, product } = await setup(t);
  assert.deepEqual(assertOk(await api.get(`${base}/listings`)), {
    items: [],
    pageNumber: 1,
    pageSize: 20,
    totalCount: 0,
    totalPages: 0,
  });

  const a = await product('Alpha key', { unlisted: true });
  const b = await product('Beta key');
  const c = await product('Gamma key');
  const first = assertOk(await api.get(`${base}/listings`));
  assert.equal(first.totalCount, 3);
  assert.deepEqual(first.items[0], {
    id: first.items[0].id,
    type: 'product',
    path: 'alpha-key',
    position: 0,
    product: {
      id: a.id,
      title: 'Alpha key',
      path: 'alpha-key',
      thumbnailUrl: null,
      unlisted: true,
      private: false,
      onHold: false,
      isInternal: false,
      minPrice: { amount: 9.99, currency: 'USD' },
    },
    group: null,
  });
  assert.deepEqual(
    first.items.map((l: { position: number }) => l.position),
    [0, 1, 2],
  );

  // Grouping products takes away their listings; the group gets one, at the end.
  const group = assertOk(
    await api.post(`${base}/groups`, { title: 'Bundle', productIds: [c.id, a.id], type: 'dropdown' }),
  );
  assert.deepEqual(await listed(api, base), [`p${b.id}`, `g${group.id}`]);
  const groupListing = assertOk(await api.get(`${base}/listings`)).items[1];
  assert.deepEqual(groupListing, {
    id: groupListing.id,
    type: 'group',
    path: 'bundle',
    position: 3,
    product: null,
    group: { id: group.id, title: 'Bundle', path: 'bundle', type: 'dropdown', thumbnailUrl: null },
  });

  // A renamed group keeps its listing; removing the group brings its products back at the end, by product id.
  assertOk(
    await api.put(`${base}/groups/${group.id}`, { title: 'Bundle 2', path: 'bundle-2', productIds: [c.id, a.id] }),
  );
  const renamed = assertOk(await api.get(`${base}/listings`)).items[1];
  assert.equal(renamed.id, groupListing.id);
  assert.equal(renamed.path, 'bundle-2');
  assertOk(await api.delete(`${base}/groups/${group.id}`));
  assert.deepEqual(await listed(api, base), [`p${b.id}`, `p${a.id}`, `p${c.id}`]);

  // A deleted product's listing goes; a new product's comes at the end.
  assertOk(await api.delete(`${base}/products/${b.id}`));
  const d = await product('Delta key');
  assert.deepEqual(await listed(api, base), [`p${a.id}`, `p${c.id}`, `p${d.id}`]);
});

test('listings are paged and searchable', async (t) => {
  const { api, base, product } = await setup(t);
  const ids = [];
  for (const title of ['Red apple', 'Green pear', 'Red cherry']) ids.push((await product(title)).id);
  const group = assertOk(await api.post(`${base}/groups`, { title: 'Red fruits' }));

  const page2 = assertOk(await api.get(`${base}/listings?pageSize=2&pageNumber=2`));
  assert.deepEqual(
    { ...page2, items: page2.items.map((l: any) => l.product?.id ?? `g${l.group.id}`) },
    { items: [ids[2], `g${group.id}`], pageNumber: 2, pageSize: 2, totalCount: 4, totalPages: 2 },
  );
  const red = assertOk(await api.get(`${base}/listings?searchString=RED`));
  assert.equal(red.totalCount, 3);
  assert.deepEqual(
    red.items.map((l: any) => l.product?.id ?? `g${l.group.id}`),
    [ids[0], ids[2], `g${group.id}`],
  );
  assert.equal(assertOk(await api.get(`${base}/listings?searchString=100%25`)).totalCount, 0);
  for (const query of ['pageSize=101', 'pageSize=0', 'pageNumber=0', 'pageNumber=x']) {
    assertError(await api.get(`${base}/listings?${query}`), 400, 'validation_error');
  }
});

test('positions reorder listings, persist, and are all or nothing', async (t) => {
  const { app, api, base, product } = await setup(t);
  const a = await product('A');
  const b = await product('B');
  const c = await product('C');
  const group = assertOk(await api.post(`${base}/groups`, { title: 'G' }));
  const listings = assertOk(await api.get(`${base}/listings`)).items;
  const [la, lb, lc, lg] = listings.map((l: { id: number }) => l.id);

  const answer = assertOk(
    await api.put(`${base}/listings/position`, {
      listings: [
        { listingId: lg, position: 0 },
        { listingId: la, position: 10 },
      ],
    }),
  );
  // Not paged: the whole list, in the new order (ties go by id).
  assert.ok(Array.isArray(answer));
  assert.deepEqual(
    answer.map((l: any) => [l.id, l.position]),
    [
      [lb, 1],
      [lg, 0],
      [lc, 2],
      [la, 10],
    ].sort((x, y) => x[1]! - y[1]! || x[0]! - y[0]!),
  );
  assert.deepEqual(await listed(api, base), [`g${group.id}`, `p${b.id}`, `p${c.id}`, `p${a.id}`]);
  assert.deepEqual(assertOk(await api.get(`${base}/listings`)).items, answer, 'the order persists');

  // A new listing goes after the highest position.
  const d = await product('D');
  const last = assertOk(await api.get(`${base}/listings`)).items.at(-1);
  assert.deepEqual([last.product.id, last.position], [d.id, 11]);
  const before = assertOk(await api.get(`${base}/listings`));

  // Another shop's listing in the batch: 404, nothing moves.
  const other = await owner(app);
  const otherShop = await createShop(other, 'Other');
  assertOk(await other.post(`/self/${otherShop.id}/v2/products`, productBody('Foreign')));
  const foreignListing = assertOk(await other.get(`/self/${otherShop.id}/listings`)).items[0].id;
  const foreign = await api.put(`${base}/listings/position`, {
    listings: [
      { listingId: lb, position: 50 },
      { listingId: foreignListing, position: 0 },
    ],
  });
  assertError(foreign, 404, 'not_found');
  assert.deepEqual(foreign.body.errors, [`listings[1].listingId: no listing ${foreignListing} in this shop`]);
  assertError(
    await api.put(`${base}/listings/position`, {
      listings: [
        { listingId: lb, position: 50 },
        { listingId: 999999, position: 0 },
      ],
    }),
    404,
    'not_found',
  );
  assert.deepEqual(assertOk(await other.get(`/self/${otherShop.id}/listings`)).items[0].position, 0);

  // Bad bodies: 400 naming the field.
  const bad: [unknown, string][] = [
    [{}, 'listings: is required'],
    [{ listings: [] }, 'listings: '],
    [{ listings: [{ listingId: la }] }, 'listings[0].position: is required'],
    [{ listings: [{ position: 1 }] }, 'listings[0].listingId: is required'],
    [{ listings: [{ listingId: la, position: -1 }] }, 'listings[0].position: '],
    [{ listings: [{ listingId: la, position: 1.5 }] }, 'listings[0].position: '],
    [{ listings: [{ listingId: la, position: '1' }] }, 'listings[0].position: must be integer'],
    [{ listings: [{ listingId: 0, position: 1 }] }, 'listings[0].listingId: '],
    [
      {
        listings: [
          { listingId: la, position: 1 },
          { listingId: la, position: 2 },
        ],
      },
      'listings[1].listingId: appears twice',
    ],
    [{ listings: Array.from({ length: 1001 }, (_, i) => ({ listingId: i + 1, position: i })) }, 'listings: '],
  ];
  for (const [body, error] of bad) {
    const res = await api.put(`${base}/listings/position`, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(error)),
      `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
  assert.deepEqual(assertOk(await api.get(`${base}/listings`)), before, 'nothing changed');
});

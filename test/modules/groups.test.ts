import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, type Client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { pngImage } from '../helpers/multipart.js';
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

test('groups: create, read, list, replace and delete', async (t) => {
  const { api, base, product } = await setup(t);
  const a = await product('Alpha key');
  const b = await product('Beta key');
  const c = await product('Gamma key');

  const group = assertOk(
    await api.post(`${base}/groups`, {
      title: '  Bundle Deals ',
      description: 'Best bundles',
      productIds: [b.id, a.id],
      priority: 5,
      type: 'dropdown',
      main: true,
    }),
  );
  assert.deepEqual(
    { ...group, createdAt: undefined, updatedAt: undefined },
    {
      id: group.id,
      title: 'Bundle Deals',
      description: 'Best bundles',
      path: 'bundle-deals',
      productIds: [b.id, a.id],
      priority: 5,
      type: 'dropdown',
      main: true,
      thumbnailUrl: null,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  assert.match(group.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(assertOk(await api.get(`${base}/groups/${group.id}`)), group);

  // Defaults, and a product may be in several groups.
  const plain = assertOk(await api.post(`${base}/groups`, { title: 'Plain', productIds: [a.id] }));
  assert.equal(plain.type, 'list');
  assert.equal(plain.main, false);
  assert.equal(plain.priority, 0);
  assert.equal(plain.description, null);
  assert.deepEqual(plain.productIds, [a.id]);

  const list = assertOk(await api.get(`${base}/groups`));
  assert.deepEqual(
    list.items.map((g: { id: number }) => g.id),
    [plain.id, group.id],
    'newest first',
  );
  assert.equal(list.totalCount, 2);
  assert.deepEqual(list.items[1], group);
  const searched = assertOk(await api.get(`${base}/groups?searchString=BUNDLE`));
  assert.deepEqual(
    searched.items.map((g: { id: number }) => g.id),
    [group.id],
  );
  const paged = assertOk(await api.get(`${base}/groups?pageSize=1&pageNumber=2`));
  assert.deepEqual(
    { ids: paged.items.map((g: { id: number }) => g.id), totalCount: paged.totalCount, totalPages: paged.totalPages },
    { ids: [group.id], totalCount: 2, totalPages: 2 },
  );
  assertError(await api.get(`${base}/groups?pageSize=101`), 400, 'validation_error');

  // Full update: omitted optional fields reset, the omitted path stays, the order is the new one.
  const replaced = assertOk(
    await api.put(`${base}/groups/${group.id}`, { title: 'Renamed', productIds: [c.id, b.id] }),
  );
  assert.equal(replaced.title, 'Renamed');
  assert.equal(replaced.path, 'bundle-deals');
  assert.equal(replaced.description, null);
  assert.equal(replaced.priority, 0);
  assert.equal(replaced.type, 'list');
  assert.equal(replaced.main, false);
  assert.deepEqual(replaced.productIds, [c.id, b.id]);
  assert.equal(replaced.createdAt, group.createdAt);
  const moved = assertOk(await api.put(`${base}/groups/${group.id}`, { title: 'Renamed', path: 'new-path' }));
  assert.equal(moved.path, 'new-path');
  assert.deepEqual(moved.productIds, []);

  assert.deepEqual(assertOk(await api.delete(`${base}/groups/${group.id}`)), { id: group.id, deleted: true });
  assertError(await api.get(`${base}/groups/${group.id}`), 404, 'not_found');
  assert.deepEqual(
    assertOk(await api.get(`${base}/groups`)).items.map((g: { id: number }) => g.id),
    [plain.id],
  );
  // The products themselves stay.
  assertOk(await api.get(`${base}/v2/products/${b.id}`));
});

test('group paths are unique among the shop’s products and groups', async (t) => {
  const { api, base, product } = await setup(t);
  await product('Some product', { path: 'taken-by-product' });
  const first = assertOk(await api.post(`${base}/groups`, { title: 'Keys' }));
  const second = assertOk(await api.post(`${base}/groups`, { title: 'Keys' }));
  assert.equal(first.path, 'keys');
  assert.equal(second.path, 'keys-2');
  // A generated path steps around a product's path too.
  assert.equal(assertOk(await api.post(`${base}/groups`, { title: 'Taken by product' })).path, 'taken-by-product-2');

  for (const path of ['taken-by-product', 'keys']) {
    const res = await api.post(`${base}/groups`, { title: 'Other', path });
    assertError(res, 409, 'conflict');
    assert.deepEqual(res.body.errors, ['path: is already taken']);
    const update = await api.put(`${base}/groups/${second.id}`, { title: 'Keys', path });
    assertError(update, 409, 'conflict');
  }
  assert.equal(
    assertOk(await api.get(`${base}/groups/${second.id}`)).path,
    'keys-2',
    'a refused update changes nothing',
  );
  // Its own path is not a conflict; a product cannot take a group's path either.
  assert.equal(
    assertOk(await api.put(`${base}/groups/${second.id}`, { title: 'Keys', path: 'keys-2' })).path,
    'keys-2',
  );
  assertError(await api.post(`${base}/v2/products`, productBody('Clash', { path: 'keys' })), 409, 'conflict');
  assert.equal(assertOk(await api.get(`${base}/groups`)).totalCount, 3);

  // Another shop may use the same path.
  const otherShop = await createShop(api, 'Other Shop');
  assert.equal(assertOk(await api.post(`/self/${otherShop.id}/groups`, { title: 'Keys', path: 'keys' })).path, 'keys');
});

test('bad group bodies are a 400 naming the field and change nothing', async (t) => {
  const { app, api, base, product } = await setup(t);
  const a = await product('Alpha');
  const gone = await product('Gone');
  assertOk(await api.delete(`${base}/products/${gone.id}`));
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  const foreign = assertOk(await other.post(`/self/${otherShop.id}/v2/products`, productBody('Foreign')));
  const group = assertOk(await api.post(`${base}/groups`, { title: 'Kept', productIds: [a.id] }));
  const listingsBefore = assertOk(await api.get(`${base}/listings`));

  const cases: [unknown, string][] = [
    [{}, 'title: is required'],
    [{ title: '' }, 'title: '],
    [{ title: '   ' }, 'title: must not be blank'],
    [{ title: 'x'.repeat(201) }, 'title: '],
    [{ title: 7 }, 'title: must be string'],
    [{ title: 'T', description: 'x'.repeat(50_001) }, 'description: '],
    [{ title: 'T', path: 'Not A Slug' }, 'path: '],
    [{ title: 'T', path: 'x'.repeat(101) }, 'path: '],
    [{ title: 'T', type: 'grid' }, 'type: must be one of: list, dropdown'],
    [{ title: 'T', main: 'yes' }, 'main: must be boolean'],
    [{ title: 'T', priority: 1.5 }, 'priority: '],
    [{ title: 'T', priority: 2_000_000 }, 'priority: '],
    [{ title: 'T', productIds: 'all' }, 'productIds: must be array'],
    [{ title: 'T', productIds: [0] }, 'productIds[0]: '],
    [{ title: 'T', productIds: ['1'] }, 'productIds[0]: must be integer'],
    [{ title: 'T', productIds: Array.from({ length: 501 }, (_, i) => i + 1) }, 'productIds: '],
    [{ title: 'T', productIds: [a.id, 999999] }, 'productIds[1]: is not a product of this shop'],
    [{ title: 'T', productIds: [a.id, a.id] }, 'productIds: must not list an id twice'],
    [{ title: 'T', productIds: [gone.id] }, 'productIds[0]: is not a product of this shop'],
    [{ title: 'T', productIds: [foreign.id] }, 'productIds[0]: is not a product of this shop'],
  ];
  for (const [body, error] of cases) {
    for (const res of [await api.post(`${base}/groups`, body), await api.put(`${base}/groups/${group.id}`, body)]) {
      assertError(res, 400, 'validation_error');
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith(error)),
        `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
  const groups = assertOk(await api.get(`${base}/groups`));
  assert.equal(groups.totalCount, 1, 'nothing was created');
  assert.deepEqual(groups.items[0], group, 'nothing was changed');
  assert.deepEqual(assertOk(await api.get(`${base}/listings`)), listingsBefore);
});

test('unknown group ids are a 404, bad ones a 400', async (t) => {
  const { api, base } = await setup(t);
  const missing = `${base}/groups/999999`;
  assertError(await api.get(missing), 404, 'not_found');
  assertError(await api.put(missing, { title: 'X' }), 404, 'not_found');
  assertError(await api.delete(missing), 404, 'not_found');
  assertError(await api.upload(`${missing}/thumbnail`, await pngImage()), 404, 'not_found');
  for (const id of ['abc', '0', '2147483648']) {
    const res = await api.get(`${base}/groups/${id}`);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^groupId: /);
  }
});

test('a deleted product leaves its groups and gets its listing back when it leaves its last group', async (t) => {
  const { api, base, product } = await setup(t);
  const a = await product('Alpha');
  const b = await product('Beta');
  const c = await product('Gamma');
  const one = assertOk(await api.post(`${base}/groups`, { title: 'One', productIds: [a.id, b.id] }));
  const two = assertOk(await api.post(`${base}/groups`, { title: 'Two', productIds: [b.id, c.id] }));
  const listed = async () =>
    assertOk(await api.get(`${base}/listings`)).items.map((l: any) =>
      l.type === 'product' ? `p${l.product.id}` : `g${l.group.id}`,
    );
  assert.deepEqual(await listed(), [`g${one.id}`, `g${two.id}`]);

  assertOk(await api.delete(`${base}/products/${b.id}`));
  assert.deepEqual(assertOk(await api.get(`${base}/groups/${one.id}`)).productIds, [a.id]);
  assert.deepEqual(assertOk(await api.get(`${base}/groups/${two.id}`)).productIds, [c.id]);
  assert.deepEqual(await listed(), [`g${one.id}`, `g${two.id}`], 'a deleted product gets no listing');

  // Leaving one group of two keeps the product unlisted; leaving the last brings it back, at the end.
  const three = assertOk(await api.post(`${base}/groups`, { title: 'Three', productIds: [c.id] }));
  assertOk(await api.put(`${base}/groups/${two.id}`, { title: 'Two', productIds: [] }));
  assert.deepEqual(await listed(), [`g${one.id}`, `g${two.id}`, `g${three.id}`]);
  assertOk(await api.delete(`${base}/groups/${three.id}`));
  assert.deepEqual(await listed(), [`g${one.id}`, `g${two.id}`, `p${c.id}`]);

  assertOk(await api.post(`${base}/products/bulk/delete`, { productIds: [a.id] }));
  assert.deepEqual(assertOk(await api.get(`${base}/groups/${one.id}`)).productIds, []);
});

async function served(app: FastifyInstance, url: string) {
  return app.inject({ method: 'GET', url });
}

async function thumbnailOf(api: Client, base: string, groupId: number): Promise<string | null> {
  return assertOk(await api.get(`${base}/groups/${groupId}`)).thumbnailUrl;
}

test('group thumbnails: upload, replace (the old file goes), and removal with the group', async (t) => {
  const { app, api, base } = await setup(t);
  const group = assertOk(await api.post(`${base}/groups`, { title: 'Pictured' }));
  const url = `${base}/groups/${group.id}/thumbnail`;

  const first = assertOk(await api.upload(url, await pngImage(8, 8, '#ff0000')));
  assert.match(first.url, /^\/uploads\/[A-Za-z0-9_-]+\.png$/);
  assert.equal(await thumbnailOf(api, base, group.id), first.url);
  const firstServed = await served(app, first.url);
  assert.equal(firstServed.statusCode, 200);
  assert.equal(firstServed.headers['content-type'], 'image/png');
  // The listing shows it too.
  const listing = assertOk(await api.get(`${base}/listings`)).items.find((l: any) => l.group?.id === group.id);
  assert.equal(listing.group.thumbnailUrl, first.url);

  const second = assertOk(await api.upload(url, await pngImage(8, 8, '#00ff00')));
  assert.notEqual(second.url, first.url);
  assert.equal(await thumbnailOf(api, base, group.id), second.url);
  assert.equal((await served(app, first.url)).statusCode, 404, 'the replaced file is removed');
  assert.equal((await served(app, second.url)).statusCode, 200);

  // A PUT keeps the thumbnail; not an image is a 415 and changes nothing.
  assertOk(await api.put(`${base}/groups/${group.id}`, { title: 'Pictured' }));
  assert.equal(await thumbnailOf(api, base, group.id), second.url);
  assertError(await api.upload(url, Buffer.from('not an image')), 415, 'unsupported_media_type');
  assertError(await api.post(url, { file: 'x' }), 415, 'unsupported_media_type');
  assert.equal(await thumbnailOf(api, base, group.id), second.url);

  assertOk(await api.delete(`${base}/groups/${group.id}`));
  assert.equal((await served(app, second.url)).statusCode, 404, 'deleting the group removes its thumbnail');
});

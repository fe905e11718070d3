import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

async function setup(t: Parameters<typeof build>[0]) {
  // Moved by hand where a test needs a later timestamp (newest first).
  const clock = new TestClock();
  const app = await build(t, {}, { clock });
  const api = await owner(app);
  const shop = await createShop(api);
  return { app, clock, api, shopId: shop.id as number, url: `/self/${shop.id}/announcements` };
}

const ids = (page: { items: { id: number }[] }) => page.items.map((i) => i.id);
test('announcements: create with a generated path, list newest first, replace and delete', async (t) => {
  const { clock, api, url } = await setup(t);
  const sale = assertOk(await api.post(url, { title: '  Summer Sale!  ', description: 'Everything -20%.' }));
  assert.deepEqual(
    { ...sale, createdAt: undefined, updatedAt: undefined },
    {
      id: sale.id,
      path: 'summer-sale',
      title: 'Summer Sale!',
      shortDescription: null,
      description: 'Everything -20%.',
      unlisted: false,
      private: false,
      buttonText: null,
      buttonLink: null,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  clock.advance(1000);
  const again = assertOk(await api.post(url, { title: 'Summer sale' }));
  assert.deepEqual(
    [again.path, again.description],
    ['summer-sale-2', ''],
    'a unique path per shop; description defaults to empty',
  );
  clock.advance(1000);
  const full = assertOk(
    await api.post(url, {
      title: 'Über Neuigkeiten',
      path: 'news',
      shortDescription: 'Short',
      description: 'Long',
      unlisted: true,
      private: true,
      buttonText: 'Read',
      buttonLink: 'https://example.com/news',
    }),
  );
  assert.deepEqual(
    [full.path, full.shortDescription, full.unlisted, full.private, full.buttonText, full.buttonLink],
    ['news', 'Short', true, true, 'Read', 'https://example.com/news'],
  );
  clock.advance(1000);
  const symbols = assertOk(await api.post(url, { title: '!!!' }));
  assert.equal(symbols.path, 'announcement', 'a title without letters still gets a path');
  const unicode = assertOk(await api.post(url, { title: 'Über Neuigkeiten' }));
  assert.equal(unicode.path, 'ueber-neuigkeiten');

  const list = assertOk(await api.get(url));
  assert.deepEqual(ids(list), [unicode.id, symbols.id, full.id, again.id, sale.id], 'newest first');
  assert.deepEqual(list.items[2], full);
  assert.deepEqual(ids(assertOk(await api.get(`${url}?searchString=SUMMER`))), [again.id, sale.id]);
  assert.deepEqual(
    ids(assertOk(await api.get(`${url}?searchString=short`))),
    [full.id],
    'search matches the short description',
  );
  const paged = assertOk(await api.get(`${url}?pageSize=2&pageNumber=3`));
  assert.deepEqual([ids(paged), paged.totalCount, paged.totalPages], [[sale.id], 5, 3]);

  // Full update: the path stays when the title changes; omitted fields are reset.
  const renamed = assertOk(await api.put(`${url}/${full.id}`, { title: 'Renamed news' }));
  assert.deepEqual(
    [
      renamed.path,
      renamed.title,
      renamed.shortDescription,
      renamed.description,
      renamed.unlisted,
      renamed.private,
      renamed.buttonText,
      renamed.buttonLink,
      renamed.createdAt,
    ],
    ['news', 'Renamed news', null, '', false, false, null, null, full.createdAt],
  );
  assert.equal(
    assertOk(await api.put(`${url}/${full.id}`, { title: 'Renamed news', path: 'news' })).path,
    'news',
    'its own path is not taken',
  );
  assert.equal(
    assertOk(await api.put(`${url}/${full.id}`, { title: 'Renamed news', path: 'fresh-news', shortDescription: '' }))
      .path,
    'fresh-news',
  );

  assert.deepEqual(assertOk(await api.delete(`${url}/${sale.id}`)), { id: sale.id, deleted: true });
  assertError(await api.delete(`${url}/${sale.id}`), 404, 'not_found');
  assertError(await api.put(`${url}/${sale.id}`, { title: 'x' }), 404, 'not_found');
  assert.equal(
    assertOk(await api.post(url, { title: 'Summer sale' })).path,
    'summer-sale',
    'a deleted path is free again',
  );
});

test('announcements: a taken path is a 409 and bad input a 400 naming the field; neither changes anything', async (t) => {
  const { api, url } = await setup(t);
  const a = assertOk(await api.post(url, { title: 'First', path: 'first' }));
  const b = assertOk(await api.post(url, { title: 'Second' }));
  const before = assertOk(await api.get(url));

  const taken = await api.post(url, { title: 'Other', path: 'first' });
  assertError(taken, 409, 'conflict');
  assert.deepEqual(taken.body.errors, ['path: is already taken']);
  assertError(await api.put(`${url}/${b.id}`, { title: 'Second', path: 'first' }), 409, 'conflict');

  const cases: [unknown, string][] = [
    [{}, 'title'],
    [{ title: '' }, 'title'],
    [{ title: '   ' }, 'title'],
    [{ title: 'x'.repeat(201) }, 'title'],
    [{ title: 'T', path: 'Not A Slug' }, 'path'],
    [{ title: 'T', path: '-x' }, 'path'],
    [{ title: 'T', shortDescription: 'x'.repeat(501) }, 'shortDescription'],
    [{ title: 'T', description: 'x'.repeat(50_001) }, 'description'],
    [{ title: 'T', unlisted: 'yes' }, 'unlisted'],
    [{ title: 'T', private: 1 }, 'private'],
    [{ title: 'T', buttonText: 'x'.repeat(65) }, 'buttonText'],
    [{ title: 'T', buttonLink: 'http://example.com' }, 'buttonLink'],
    [{ title: 'T', buttonLink: 'not a url' }, 'buttonLink'],
  ];
  for (const [body, field] of cases) {
    for (const res of [await api.post(url, body), await api.put(`${url}/${a.id}`, body)]) {
      assertError(res, 400, 'validation_error');
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
        `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
  assert.deepEqual(assertOk(await api.get(url)), before);
});

test('announcements: parallel creates with one title all get distinct paths', async (t) => {
  const { api, url } = await setup(t);
  const results = await Promise.all(Array.from({ length: 6 }, () => api.post(url, { title: 'Launch' })));
  const paths = results.map((r) => assertOk(r).path as string).sort();
  assert.deepEqual(paths, ['launch', 'launch-2', 'launch-3', 'launch-4', 'launch-5', 'launch-6']);
});

test("announcements: another shop's announcement is not found", async (t) => {
  const { api, url } = await setup(t);
  const other = await createShop(api, 'Other');
  const theirs = assertOk(await api.post(`/self/${other.id}/announcements`, { title: 'Theirs' }));
  assertError(await api.put(`${url}/${theirs.id}`, { title: 'Mine' }), 404, 'not_found');
  assertError(await api.delete(`${url}/${theirs.id}`), 404, 'not_found');
  assert.equal(
    assertOk(await api.post(url, { title: 'Theirs' })).path,
    'theirs',
    'paths are unique per shop, not globally',
  );
});

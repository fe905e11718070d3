import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

async function setup(t: Parameters<typeof build>[0]) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  return { app, api, shopId: shop.id as number, url: `/self/${shop.id}/faqs` };
}

const ids = (page: { items: { id: number }[] }) => page.items.map((i) => i.id);

test('faqs: create, list in position order, search, replace and delete', async (t) => {
  const { api, url } = await setup(t);
  const first = assertOk(await api.post(url, { question: '  How do I redeem a key?  ', answer: 'Open the launcher.' }));
  assert.deepEqual(
    { ...first, createdAt: undefined, updatedAt: undefined },
    {
      id: first.id,
      question: 'How do I redeem a key?',
      answer: 'Open the launcher.',
      position: 0,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  assert.match(first.createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
  const second = assertOk(await api.post(url, { question: 'Refunds?', answer: 'Within 14 days.' }));
  const third = assertOk(await api.post(url, { question: 'Delivery time?', answer: 'Instant.' }));
  assert.deepEqual([second.position, third.position], [1, 2], 'each new FAQ goes after the last');
  const pinned = assertOk(await api.post(url, { question: 'Is it legit?', answer: 'Yes.', position: 0 }));
  assert.equal(pinned.position, 0);
  const after = assertOk(await api.post(url, { question: 'Anything else?', answer: 'Ask us.' }));
  assert.equal(after.position, 3);

  const list = assertOk(await api.get(url));
  assert.deepEqual(ids(list), [first.id, pinned.id, second.id, third.id, after.id], 'position, then id');
  assert.deepEqual([list.totalCount, list.totalPages, list.pageNumber, list.pageSize], [5, 1, 1, 20]);
  assert.deepEqual(list.items[0], first);
  assert.deepEqual(
    ids(assertOk(await api.get(`${url}?searchString=REFUND`))),
    [second.id],
    'search matches the question',
  );
  assert.deepEqual(
    ids(assertOk(await api.get(`${url}?searchString=instant`))),
    [third.id],
    'search matches the answer',
  );
  assert.deepEqual(ids(assertOk(await api.get(`${url}?searchString=50%25`))), [], 'LIKE wildcards are plain text');
  const paged = assertOk(await api.get(`${url}?pageSize=2&pageNumber=3`));
  assert.deepEqual([ids(paged), paged.totalCount, paged.totalPages], [[after.id], 5, 3]);

  // Full update: question and answer replaced; an omitted position keeps the place.
  const replaced = assertOk(
    await api.put(`${url}/${third.id}`, { question: 'How fast is delivery?', answer: 'Seconds.' }),
  );
  assert.deepEqual(
    [replaced.question, replaced.answer, replaced.position, replaced.createdAt],
    ['How fast is delivery?', 'Seconds.', 2, third.createdAt],
  );
  const moved = assertOk(
    await api.put(`${url}/${third.id}`, { question: 'How fast is delivery?', answer: 'Seconds.', position: 0 }),
  );
  assert.equal(moved.position, 0);
  assert.deepEqual(ids(assertOk(await api.get(url))), [first.id, third.id, pinned.id, second.id, after.id]);

  assert.deepEqual(assertOk(await api.delete(`${url}/${second.id}`)), { id: second.id, deleted: true });
  assertError(await api.delete(`${url}/${second.id}`), 404, 'not_found');
  assertError(await api.put(`${url}/${second.id}`, { question: 'q', answer: 'a' }), 404, 'not_found');
  assert.equal(assertOk(await api.get(url)).totalCount, 4);
});

test('faqs: bad input is a 400 naming the field and changes nothing', async (t) => {
  const { api, url } = await setup(t);
  const faq = assertOk(await api.post(url, { question: 'Q?', answer: 'A.' }));
  const before = assertOk(await api.get(url));
  const cases: [unknown, string][] = [
    [{ answer: 'A.' }, 'question'],
    [{ question: '', answer: 'A.' }, 'question'],
    [{ question: '   ', answer: 'A.' }, 'question'],
    [{ question: 'x'.repeat(501), answer: 'A.' }, 'question'],
    [{ question: 'Q?', answer: 'x'.repeat(10_001) }, 'answer'],
    [{ question: 'Q?', answer: ' \n ' }, 'answer'],
    [{ question: 'Q?', answer: 42 }, 'answer'],
    [{ question: 'Q?', answer: 'A.', position: -1 }, 'position'],
    [{ question: 'Q?', answer: 'A.', position: 1.5 }, 'position'],
    [{ question: 'Q?', answer: 'A.', position: '2' }, 'position'],
  ];
  for (const [body, field] of cases) {
    for (const res of [await api.post(url, body), await api.put(`${url}/${faq.id}`, body)]) {
      assertError(res, 400, 'validation_error');
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
        `${JSON.stringify(body)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
  assert.ok(
    assertOk(await api.post(url, { question: 'x'.repeat(500), answer: 'y'.repeat(10_000) })),
    'the limits themselves are fine',
  );
  await api.delete(`${url}/${assertOk(await api.get(url)).items[1].id}`);
  assert.deepEqual(assertOk(await api.get(url)), before);
  assertError(await api.get(`${url}?pageSize=101`), 400, 'validation_error');
  assertError(await api.put(`${url}/abc`, { question: 'Q?', answer: 'A.' }), 400, 'validation_error');
});

test("faqs: another shop's FAQ is not found", async (t) => {
  const { api, url } = await setup(t);
  const other = await createShop(api, 'Other');
  const theirs = assertOk(await api.post(`/self/${other.id}/faqs`, { question: 'Theirs?', answer: 'Yes.' }));
  assertError(await api.put(`${url}/${theirs.id}`, { question: 'Mine?', answer: 'No.' }), 404, 'not_found');
  assertError(await api.delete(`${url}/${theirs.id}`), 404, 'not_found');
  assert.equal(assertOk(await api.get(url)).totalCount, 0);
  assert.equal(assertOk(await api.get(`/self/${other.id}/faqs`)).items[0].question, 'Theirs?');
});

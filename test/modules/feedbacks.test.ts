import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

const BUYER = 'feedback.buyer@example.com';

async function setup(t: TestContext) {
  const clock = new TestClock();
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' }, { clock });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const buy = async (email = BUYER, variant = shop.keysVariant) =>
    assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: variant, quantity: 1 }],
      }),
    ).id as string;
  const completed = async (email = BUYER, variant = shop.keysVariant) => {
    const id = await buy(email, variant);
    assertOk(await api.post(`/self/${shop.shopId}/invoices/${id}/process`));
    return id;
  };
  const rate = (invoiceId: string, body: unknown) =>
    app.inject({ method: 'POST', url: `/v2/public/invoices/${invoiceId}/feedback`, payload: body as object });
  const reply = (res: Awaited<ReturnType<typeof rate>>) => ({ status: res.statusCode, body: res.json() });
  const feedbackRows = async () =>
    app.db.kysely.selectFrom('feedbacks').select('id').where('shop_id', '=', shop.shopId).execute();
  return {
    app,
    api,
    clock,
    ...shop,
    buy,
    completed,
    rate,
    reply,
    feedbackRows,
    base: `/self/${shop.shopId}/feedbacks`,
  };
}

test('a customer rates a completed invoice once; the public answer says nothing about them', async (t) => {
  const { app, api, shopId, productId, completed, rate, reply, base } = await setup(t);
  const invoiceId = await completed();
  const res = await rate(invoiceId, { rating: 5, comment: '  Instant delivery, thanks!  ' });
  const feedback = assertOk(reply(res));
  assert.deepEqual(
    { ...feedback, createdAt: undefined },
    {
      id: feedback.id,
      invoiceId,
      productIds: [productId],
      rating: 5,
      comment: 'Instant delivery, thanks!',
      answer: null,
      createdAt: undefined,
    },
  );
  assert.match(feedback.createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.ok(
    !res.body.includes(BUYER) && !/customer|email/i.test(res.body),
    'no e-mail or customer data in the public answer',
  );

  const again = reply(await rate(invoiceId, { rating: 1 }));
  assertError(again, 409, 'conflict');
  assert.deepEqual(again.body.errors, ['invoiceId: already has feedback']);

  const events = await app.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('type', '=', 'feedback.created')
    .execute();
  assert.equal(events.length, 1);
  assert.deepEqual(JSON.parse(events[0]!.payload), {
    feedbackId: feedback.id,
    invoiceId,
    productIds: [productId],
    rating: 5,
    comment: 'Instant delivery, thanks!',
  });

  const ownerView = assertOk(await api.get(`${base}/${feedback.id}`));
  assert.equal(ownerView.rating, 5, 'the second post changed nothing');
  assert.deepEqual([ownerView.appeal, ownerView.answer, ownerView.answeredAt], [null, null, null]);
  assert.equal(typeof ownerView.customerId, 'number');

  // A comment is optional; empty means none.
  const plain = assertOk(reply(await rate(await completed('other@example.com'), { rating: 3, comment: '' })));
  assert.equal(plain.comment, null);
});

test('feedback needs a completed invoice: pending and expired are 409, unknown is 404', async (t) => {
  const { clock, buy, rate, reply, feedbackRows } = await setup(t);
  const pending = await buy();
  const res = reply(await rate(pending, { rating: 4 }));
  assertError(res, 409, 'conflict');
  assert.deepEqual(res.body.errors, ['invoiceId: is pending, not completed']);

  const overdue = await buy('late@example.com');
  // Past the shop's invoice lifetime (60 minutes by default).
  clock.advance(61 * 60_000);
  assert.deepEqual(
    reply(await rate(overdue, { rating: 4 })).body.errors,
    ['invoiceId: is expired, not completed'],
    'an overdue invoice is expired first',
  );

  assertError(reply(await rate('no-such-invoice', { rating: 4 })), 404, 'not_found');
  assertError(reply(await rate('bad id!', { rating: 4 })), 400, 'validation_error');
  assert.equal((await feedbackRows()).length, 0);
});

test('bad feedback input is a 400 naming the field and creates nothing', async (t) => {
  const { completed, rate, reply, feedbackRows } = await setup(t);
  const invoiceId = await completed();
  const cases: [unknown, string][] = [
    [{}, 'rating'],
    [{ rating: 0 }, 'rating'],
    [{ rating: 6 }, 'rating'],
    [{ rating: 4.5 }, 'rating'],
    [{ rating: '5' }, 'rating'],
    [{ rating: 5, comment: 'x'.repeat(2001) }, 'comment'],
    [{ rating: 5, comment: 7 }, 'comment'],
  ];
  for (const [body, field] of cases) {
    const res = reply(await rate(invoiceId, body));
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      `${JSON.stringify(body).slice(0, 60)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
  assert.equal((await feedbackRows()).length, 0);
  assertOk(reply(await rate(invoiceId, { rating: 5, comment: 'x'.repeat(2000) })));
});

test('parallel feedback posts on one invoice: exactly one wins', async (t) => {
  const { app, completed, rate, feedbackRows, shopId } = await setup(t);
  const invoiceId = await completed();
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => rate(invoiceId, { rating: (i % 5) + 1 })));
  assert.equal(results.filter((r) => r.statusCode === 200).length, 1);
  const losers = results.filter((r) => r.statusCode !== 200);
  assert.ok(
    losers.every((r) => r.statusCode === 409 && r.json().code === 'conflict'),
    JSON.stringify(losers.map((r) => r.json())),
  );
  assert.equal((await feedbackRows()).length, 1);
  const events = await app.db.kysely
    .selectFrom('events')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('type', '=', 'feedback.created')
    .execute();
  assert.equal(events.length, 1, 'the losers wrote no event');
});

test('owner: list newest first with rating filter, search and cursor paging; get one; answer', async (t) => {
  const { api, clock, completed, rate, reply, base, productId } = await setup(t);
  const made: any[] = [];
  for (const [n, rating] of [5, 2, 5, 4].entries()) {
    made.push(assertOk(reply(await rate(await completed(`b${n}@example.com`), { rating, comment: `comment ${n}` }))));
    clock.advance(1000);
  }
  const ids = (page: { items: { id: number }[] }) => page.items.map((i) => i.id);
  const list = assertOk(await api.get(base));
  assert.deepEqual(ids(list), made.map((f) => f.id).reverse(), 'newest first');
  assert.equal(list.nextCursor, null);
  assert.deepEqual(list.items[0].productIds, [productId]);
  assert.deepEqual(ids(assertOk(await api.get(`${base}?rating=5`))), [made[2].id, made[0].id]);
  assert.deepEqual(ids(assertOk(await api.get(`${base}?searchString=COMMENT%201`))), [made[1].id]);
  assert.deepEqual(
    ids(assertOk(await api.get(`${base}?searchString=${made[3].invoiceId}`))),
    [made[3].id],
    'search matches the invoice id',
  );
  assertError(await api.get(`${base}?rating=6`), 400, 'validation_error');
  assertError(await api.get(`${base}?cursor=garbage`), 400, 'validation_error');

  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const page: any = assertOk(await api.get(`${base}?pageSize=3${cursor ? `&cursor=${cursor}` : ''}`));
    assert.equal(page.totalCount, 4);
    seen.push(...ids(page));
    cursor = page.nextCursor;
  } while (cursor);
  assert.deepEqual(seen, ids(list), 'cursor pages walk the same order without gaps or repeats');

  const one = made[1];
  const answered = assertOk(await api.post(`${base}/${one.id}/answer`, { answer: '  Sorry to hear that.  ' }));
  assert.equal(answered.answer, 'Sorry to hear that.');
  assert.ok(answered.answeredAt);
  const overwritten = assertOk(await api.post(`${base}/${one.id}/answer`, { answer: 'We sent a replacement.' }));
  assert.equal(overwritten.answer, 'We sent a replacement.');
  assert.deepEqual(assertOk(await api.get(`${base}/${one.id}`)), overwritten);
  for (const [body, field] of [
    [{}, 'answer'],
    [{ answer: '' }, 'answer'],
    [{ answer: '  ' }, 'answer'],
    [{ answer: 'x'.repeat(2001) }, 'answer'],
  ] as const) {
    const res = await api.post(`${base}/${one.id}/answer`, body);
    assertError(res, 400, 'validation_error');
    assert.ok(res.body.errors[0].startsWith(`${field}: `));
  }
  assert.deepEqual(assertOk(await api.get(`${base}/${one.id}`)), overwritten, 'bad answers changed nothing');
  assertError(await api.get(`${base}/999999`), 404, 'not_found');
  assertError(await api.post(`${base}/999999/answer`, { answer: 'x' }), 404, 'not_found');
});

test('owner: appeals — one open appeal per feedback, listed with their feedback', async (t) => {
  const { api, clock, completed, rate, reply, base } = await setup(t);
  const a = assertOk(reply(await rate(await completed('a@example.com'), { rating: 1, comment: 'spam spam' })));
  clock.advance(1000);
  const b = assertOk(reply(await rate(await completed('b@example.com'), { rating: 2 })));

  const appealed = assertOk(
    await api.post(`${base}/${a.id}/appeal`, { reason: 'spam', description: 'Not a real buyer comment.' }),
  );
  assert.deepEqual(
    { ...appealed.appeal, createdAt: undefined },
    { reason: 'spam', description: 'Not a real buyer comment.', status: 'open', createdAt: undefined },
  );
  const second = await api.post(`${base}/${a.id}/appeal`, { reason: 'other', description: 'Again' });
  assertError(second, 409, 'conflict');
  assert.deepEqual(second.body.errors, ['feedbackId: already has an open appeal']);

  for (const [body, field] of [
    [{ description: 'x' }, 'reason'],
    [{ reason: 'boring', description: 'x' }, 'reason'],
    [{ reason: 'spam' }, 'description'],
    [{ reason: 'spam', description: ' ' }, 'description'],
    [{ reason: 'spam', description: 'x'.repeat(2001) }, 'description'],
  ] as const) {
    const res = await api.post(`${base}/${b.id}/appeal`, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      JSON.stringify(res.body.errors),
    );
  }
  assert.equal(assertOk(await api.get(`${base}/${b.id}`)).appeal, null, 'bad appeals changed nothing');
  assertError(await api.post(`${base}/999999/appeal`, { reason: 'spam', description: 'x' }), 404, 'not_found');

  // Parallel appeals on one feedback: exactly one is opened.
  const parallel = await Promise.all(
    Array.from({ length: 5 }, () =>
      api.post(`${base}/${b.id}/appeal`, { reason: 'wrong_product', description: 'Wrong product' }),
    ),
  );
  assert.equal(parallel.filter((r) => r.status === 200).length, 1);
  assert.ok(parallel.filter((r) => r.status !== 200).every((r) => r.status === 409));

  const appeals = assertOk(await api.get(`${base}/appeals`));
  assert.equal(appeals.totalCount, 2);
  assert.deepEqual(
    appeals.items.map((x: { feedbackId: number }) => x.feedbackId),
    [b.id, a.id],
    'newest first',
  );
  assert.deepEqual(Object.keys(appeals.items[0]).sort(), [
    'createdAt',
    'description',
    'feedbackId',
    'id',
    'reason',
    'resolvedAt',
    'status',
  ]);
  assert.equal(assertOk(await api.get(`${base}/appeals?status=open`)).totalCount, 2);
  assert.equal(assertOk(await api.get(`${base}/appeals?status=accepted`)).totalCount, 0);
  assert.equal(assertOk(await api.get(`${base}/appeals?searchString=wrong`)).items[0].feedbackId, b.id);
  assertError(await api.get(`${base}/appeals?status=pending`), 400, 'validation_error');
  assert.equal(
    assertOk(await api.get(base)).items.find((f: { id: number }) => f.id === a.id).appeal.reason,
    'spam',
    'lists carry the latest appeal',
  );
});

test("owner: another shop's feedback is not found", async (t) => {
  const { api, completed, rate, reply, base } = await setup(t);
  const other = await sellingShop(api);
  const invoice = assertOk(
    await api.post(`/v2/public/shops/${other.shopId}/invoices`, {
      customerEmail: 'x@example.com',
      gateway: 'tipjar',
      parts: [{ productId: other.productId, productVariantId: other.keysVariant, quantity: 1 }],
    }),
  );
  assertOk(await api.post(`/self/${other.shopId}/invoices/${invoice.id}/process`));
  const theirs = assertOk(reply(await rate(invoice.id, { rating: 3 })));
  assertOk(reply(await rate(await completed(), { rating: 4 })));
  assertError(await api.get(`${base}/${theirs.id}`), 404, 'not_found');
  assertError(await api.post(`${base}/${theirs.id}/answer`, { answer: 'x' }), 404, 'not_found');
  assertError(await api.post(`${base}/${theirs.id}/appeal`, { reason: 'spam', description: 'x' }), 404, 'not_found');
  assert.equal(assertOk(await api.get(base)).totalCount, 1);
  assert.equal(assertOk(await api.get(`/self/${other.shopId}/feedbacks/${theirs.id}`)).answer, null);
});

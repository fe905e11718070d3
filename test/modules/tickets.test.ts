import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { nextTicketStatus, ticketTransitions } from '../../src/modules/tickets/state.js';
import { build, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, createShop, sellingShop } from '../helpers/factories.js';

const EMAIL = 'ticket.buyer@example.com';

async function setup(t: TestContext) {
  // Moved by hand where a test needs a later timestamp (latest activity first).
  const clock = new TestClock();
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' }, { clock });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const shopId = shop.shopId;
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await app.inject({ method, url, ...(body === undefined ? {} : { payload: body as object }) });
    return { status: res.statusCode, body: res.json(), raw: res.body };
  };
  const open = (body: Record<string, unknown> = {}, id = shopId) =>
    call('POST', `/v2/public/shops/${id}/tickets`, {
      email: EMAIL,
      title: 'Key does not work',
      message: 'It says already redeemed.',
      ...body,
    });
  const view = (id: number, key: string) =>
    call('GET', `/v2/public/tickets/${id}?accessKey=${encodeURIComponent(key)}`);
  const write = (id: number, key: string, content: unknown) =>
    call('POST', `/v2/public/tickets/${id}/message?accessKey=${encodeURIComponent(key)}`, { content });
  const base = `/self/${shopId}/tickets`;
  const ticketCount = async () => (await app.db.kysely.selectFrom('tickets').select('id').execute()).length;
  return { app, clock, api, ...shop, call, open, view, write, base, ticketCount };
}

test('the transition table: shop message answers, customer message opens, close ends; closed takes nothing', () => {
  assert.deepEqual(ticketTransitions, {
    open: { shop_message: 'answered', customer_message: 'open', close: 'closed' },
    answered: { shop_message: 'answered', customer_message: 'open', close: 'closed' },
    closed: {},
  });
  assert.equal(nextTicketStatus('open', 'shop_message'), 'answered');
  assert.equal(nextTicketStatus('answered', 'customer_message'), 'open');
  for (const action of ['shop_message', 'customer_message', 'close'] as const) {
    assert.throws(
      () => nextTicketStatus('closed', action),
      (err: { statusCode: number; code: string }) => err.statusCode === 409 && err.code === 'conflict',
    );
  }
});

test('a customer opens a ticket, reads it with the access key, and the conversation moves the status', async (t) => {
  const { app, clock, api, shopId, open, view, write, base } = await setup(t);
  const created = assertOk(await open({ title: '  Key does not work  ', message: '  It says already redeemed.  ' }));
  assert.deepEqual(Object.keys(created).sort(), ['accessKey', 'id']);
  assert.match(created.accessKey, /^[A-Za-z0-9_-]{32}$/);
  const row = await app.db.kysely
    .selectFrom('tickets')
    .selectAll()
    .where('id', '=', created.id)
    .executeTakeFirstOrThrow();
  assert.equal(
    row.access_key_hash,
    createHash('sha256').update(created.accessKey).digest('hex'),
    'only the SHA-256 is stored',
  );
  assert.ok(!JSON.stringify(row).includes(created.accessKey));
  assert.equal(
    app.secrets.open(row.access_key_sealed!),
    created.accessKey,
    'sealed with the server key, for later mail',
  );

  const first = await view(created.id, created.accessKey);
  const page = assertOk(first);
  assert.deepEqual(
    { ...page, createdAt: undefined, updatedAt: undefined, messages: undefined },
    {
      id: created.id,
      shopId,
      title: 'Key does not work',
      invoiceId: null,
      status: 'open',
      createdAt: undefined,
      updatedAt: undefined,
      messages: undefined,
    },
  );
  assert.deepEqual(
    page.messages.map((m: { author: string; content: string }) => [m.author, m.content]),
    [['customer', 'It says already redeemed.']],
  );
  assert.ok(!first.raw.includes(EMAIL) && !/email/i.test(first.raw), 'the public view carries no e-mail');

  // The owner sees it, answers: answered, and the customer is mailed.
  const ownerView = assertOk(await api.get(`${base}/${created.id}`));
  assert.deepEqual([ownerView.email, ownerView.status, ownerView.messages.length], [EMAIL, 'open', 1]);
  clock.advance(1000);
  const answered = assertOk(await api.post(`${base}/${created.id}/message`, { content: 'We sent a new key.' }));
  assert.equal(answered.status, 'answered');
  assert.ok(answered.updatedAt > ownerView.updatedAt);
  const mail = await app.db.kysely
    .selectFrom('mail_outbox')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('to_address', '=', EMAIL)
    .orderBy('id')
    .execute();
  assert.equal(mail.length, 2, 'one when the ticket was opened, one for the answer');
  assert.match(mail[0]!.subject, new RegExp(`^Your support ticket ${created.id} at `));
  assert.match(mail[1]!.body_text, /We sent a new key\./);
  for (const m of mail) {
    assert.ok(m.body_text.includes(`/tickets/${created.id}?key=${created.accessKey}`), 'the link carries the key');
    assert.ok(m.body_html?.includes(`/tickets/${created.id}?key=${created.accessKey}`));
  }

  // The customer writes again: open. The shop again: answered.
  const reopened = assertOk(await write(created.id, created.accessKey, 'Thanks, works now!'));
  assert.equal(reopened.status, 'open');
  assert.deepEqual(
    reopened.messages.map((m: { author: string }) => m.author),
    ['customer', 'shop', 'customer'],
  );
  assert.ok(!JSON.stringify(reopened).includes(EMAIL));
  assert.equal(assertOk(await api.post(`${base}/${created.id}/message`, { content: 'Great.' })).status, 'answered');
  assert.equal(assertOk(await write(created.id, created.accessKey, 'One more question')).status, 'open');

  // Closed: no more messages from anyone, no second close.
  const closed = assertOk(await api.post(`${base}/${created.id}/close`));
  assert.equal(closed.status, 'closed');
  assertError(await api.post(`${base}/${created.id}/message`, { content: 'Late' }), 409, 'conflict');
  const late = await write(created.id, created.accessKey, 'Late');
  assertError(late, 409, 'conflict');
  assert.deepEqual(late.body.errors, ['status: is closed']);
  assertError(await api.post(`${base}/${created.id}/close`), 409, 'conflict');
  const final = assertOk(await view(created.id, created.accessKey));
  assert.equal(final.status, 'closed');
  assert.equal(final.messages.length, 5, 'refused messages were not kept');

  const events = await app.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('type', 'like', 'ticket.%')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  assert.deepEqual(
    events.map((e) => e.type),
    ['ticket.created', 'ticket.message', 'ticket.message', 'ticket.message', 'ticket.message'],
  );
  const authors = events
    .slice(1)
    .map((e) => JSON.parse(e.payload).author)
    .sort();
  assert.deepEqual(authors, ['customer', 'customer', 'shop', 'shop'], 'messages of both authors are events');
  assert.equal(JSON.parse(events[0]!.payload).ticketId, created.id);
});

test('a wrong access key and an unknown ticket are the same 404', async (t) => {
  const { open, view, write, ticketCount } = await setup(t);
  const created = assertOk(await open());
  const wrong = await view(
    created.id,
    `${created.accessKey.slice(0, -1)}${created.accessKey.endsWith('A') ? 'B' : 'A'}`,
  );
  assertError(wrong, 404, 'not_found');
  const unknown = await view(999999, created.accessKey);
  assert.deepEqual(wrong.body, unknown.body);
  assertError(await view(created.id, 'x'), 404, 'not_found');
  const wrongWrite = await write(created.id, 'not-the-key', 'hi');
  assert.deepEqual(wrongWrite.body, unknown.body);
  assertError(await write(999999, created.accessKey, 'hi'), 404, 'not_found');
  const missing = await view(created.id, '');
  assertError(missing, 400, 'validation_error');
  assert.ok(missing.body.errors[0].startsWith('accessKey: '));
  assertError(await view(0, created.accessKey), 400, 'validation_error');
  assert.equal(assertOk(await view(created.id, created.accessKey)).messages.length, 1, 'wrong keys added nothing');
  assert.equal(await ticketCount(), 1);
});

test('bad ticket input is a 400 naming the field and creates nothing', async (t) => {
  const { api, open, write, base, ticketCount } = await setup(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ email: 'not-an-email' }, 'email'],
    [{ email: undefined }, 'email'],
    [{ title: '' }, 'title'],
    [{ title: '   ' }, 'title'],
    [{ title: 'x'.repeat(201) }, 'title'],
    [{ message: '' }, 'message'],
    [{ message: ' \n ' }, 'message'],
    [{ message: 'x'.repeat(5001) }, 'message'],
    [{ invoiceId: 'bad id!' }, 'invoiceId'],
    [{ invoiceId: 'unknownInvoice123' }, 'invoiceId'],
  ];
  for (const [body, field] of cases) {
    const res = await open(body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      `${JSON.stringify(body).slice(0, 60)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
  assert.equal(await ticketCount(), 0);

  const created = assertOk(await open());
  for (const content of ['', '  ', 'x'.repeat(5001), 5]) {
    const res = await write(created.id, created.accessKey, content);
    assertError(res, 400, 'validation_error');
    assert.ok(res.body.errors[0].startsWith('content: '));
    const own = await api.post(`${base}/${created.id}/message`, { content });
    assertError(own, 400, 'validation_error');
    assert.ok(own.body.errors[0].startsWith('content: '));
  }
  const after = assertOk(await api.get(`${base}/${created.id}`));
  assert.deepEqual([after.status, after.messages.length], ['open', 1], 'nothing changed');
});

test('invoiceId must be an invoice of this shop; unknown shops are 404; a storefront password is needed as key', async (t) => {
  const { api, shopId, productId, keysVariant, open, ticketCount } = await setup(t);
  const invoice = assertOk(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      customerEmail: EMAIL,
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
    }),
  );
  const linked = assertOk(await open({ invoiceId: invoice.id }));
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets/${linked.id}`)).invoiceId, invoice.id);

  const other = await sellingShop(api);
  const foreign = assertOk(
    await api.post(`/v2/public/shops/${other.shopId}/invoices`, {
      customerEmail: EMAIL,
      gateway: 'tipjar',
      parts: [{ productId: other.productId, productVariantId: other.keysVariant, quantity: 1 }],
    }),
  );
  const crossed = await open({ invoiceId: foreign.id });
  assertError(crossed, 400, 'validation_error');
  assert.deepEqual(crossed.body.errors, ['invoiceId: is not an invoice of this shop']);

  assertError(await open({}, 999999), 404, 'not_found');

  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'letmein!' }));
  const locked = await open();
  assertError(locked, 403, 'shop_locked');
  assertError(await open({ key: 'wrong' }), 403, 'shop_locked');
  assertOk(await open({ key: 'letmein!' }));
  assert.equal(await ticketCount(), 2);
});

test('owner: list by latest activity with status filter, search and cursor paging', async (t) => {
  const { clock, api, open, write, base } = await setup(t);
  const a = assertOk(await open({ title: 'Refund please', email: 'alice@example.com' }));
  clock.advance(1000);
  const b = assertOk(await open({ title: 'Wrong region', email: 'bob@example.com' }));
  clock.advance(1000);
  const c = assertOk(await open({ title: 'Where is my key', email: 'carol@example.com' }));
  clock.advance(1000);
  assertOk(await api.post(`${base}/${a.id}/message`, { content: 'On its way.' }));
  clock.advance(1000);
  assertOk(await api.post(`${base}/${b.id}/close`));

  const ids = (page: { items: { id: number }[] }) => page.items.map((i) => i.id);
  const list = assertOk(await api.get(base));
  assert.deepEqual(ids(list), [b.id, a.id, c.id], 'latest activity first');
  assert.deepEqual(
    list.items[1].messages.map((m: { author: string }) => m.author),
    ['customer', 'shop'],
  );
  assert.equal(list.nextCursor, null);
  assert.deepEqual(ids(assertOk(await api.get(`${base}?status=open`))), [c.id]);
  assert.deepEqual(ids(assertOk(await api.get(`${base}?status=answered`))), [a.id]);
  assert.deepEqual(ids(assertOk(await api.get(`${base}?status=closed`))), [b.id]);
  assert.deepEqual(ids(assertOk(await api.get(`${base}?searchString=REFUND`))), [a.id], 'search matches the title');
  assert.deepEqual(ids(assertOk(await api.get(`${base}?searchString=carol@`))), [c.id], 'search matches the e-mail');
  assertError(await api.get(`${base}?status=pending`), 400, 'validation_error');

  const first = assertOk(await api.get(`${base}?pageSize=2`));
  assert.deepEqual([ids(first), first.totalCount, first.totalPages], [[b.id, a.id], 3, 2]);
  const second = assertOk(await api.get(`${base}?pageSize=2&cursor=${first.nextCursor}`));
  assert.deepEqual([ids(second), second.nextCursor], [[c.id], null]);

  clock.advance(1000);
  assertOk(await write(c.id, c.accessKey, 'Any news?'));
  assert.deepEqual(ids(assertOk(await api.get(base))), [c.id, b.id, a.id], 'a customer message moves the ticket up');
});

test("owner: another shop's ticket is not found", async (t) => {
  const { api, open, base } = await setup(t);
  const other = await createShop(api, 'Other');
  const theirs = assertOk(await open({}, other.id));
  for (const res of [
    await api.get(`${base}/${theirs.id}`),
    await api.post(`${base}/${theirs.id}/message`, { content: 'x' }),
    await api.post(`${base}/${theirs.id}/close`),
  ]) {
    assertError(res, 404, 'not_found');
  }
  assert.equal(assertOk(await api.get(`/self/${other.id}/tickets/${theirs.id}`)).status, 'open');
  assert.equal(assertOk(await api.get(base)).totalCount, 0);
});

test('parallel closes and messages apply one after the other: one close wins, nothing lands after it', async (t) => {
  const { api, open, view, write, base } = await setup(t);
  const created = assertOk(await open());
  const results = await Promise.all([
    ...Array.from({ length: 4 }, () => api.post(`${base}/${created.id}/close`)),
    ...Array.from({ length: 4 }, (_, i) => api.post(`${base}/${created.id}/message`, { content: `shop ${i}` })),
    ...Array.from({ length: 4 }, (_, i) => write(created.id, created.accessKey, `customer ${i}`)),
  ]);
  const closes = results.slice(0, 4);
  assert.equal(closes.filter((r) => r.status === 200).length, 1);
  assert.ok(
    results.every((r) => r.status === 200 || r.status === 409),
    JSON.stringify(results.map((r) => r.status)),
  );
  const final = assertOk(await view(created.id, created.accessKey));
  assert.equal(final.status, 'closed');
  const accepted = results.slice(4).filter((r) => r.status === 200).length;
  assert.equal(final.messages.length, 1 + accepted, 'every accepted message is kept, every refused one is not');
});

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { EXPIRY_BATCH, expireOverdue } from '../../src/modules/orders/lifecycle.service.js';
import { build, type Client, engine, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { httpsEndpoint, httpsServer } from '../helpers/https-endpoint.js';
import { smtpSink } from '../helpers/smtp-sink.js';
import { waitUntil } from '../helpers/wait.js';

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const app = await build(t, { ...env });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const buy = async (parts: { variant: number; quantity: number }[], over: object = {}) =>
    assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: 'buyer@example.com',
        gateway: 'tipjar',
        parts: parts.map((p) => ({ productId: shop.productId, productVariantId: p.variant, quantity: p.quantity })),
        ...over,
      }),
    );
  const base = `/self/${shop.shopId}/invoices`;
  const stock = async () =>
    assertOk(await api.get(`/self/${shop.shopId}/v2/products/${shop.productId}`)).variants.map(
      (v: { stock: number }) => v.stock,
    );
  return { app, api, ...shop, buy, base, stock };
}

test('processing completes, delivers each serial once, counts the sale, and writes mail and events', async (t) => {
  const { app, api, shopId, productId, keysVariant, serviceVariant, buy, base, stock } = await setup(t);
  const invoice = await buy([
    { variant: keysVariant, quantity: 2 },
    { variant: serviceVariant, quantity: 3 },
  ]);
  assert.deepEqual(await stock(), [3, 7]);
  const done = assertOk(await api.post(`${base}/${invoice.id}/process`));
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.parts[0].deliverables, ['K1', 'K2']);
  assert.deepEqual(done.parts[1].deliverables, ['Support text']);
  assert.ok(done.completedAt);
  assert.deepEqual(await stock(), [3, 7], 'reserved stock is consumed, not taken twice');
  const publicView = (await app.inject({ method: 'GET', url: `/v2/public/invoices/${invoice.id}` })).json().data;
  assert.deepEqual(publicView.parts[0].deliverables, ['K1', 'K2']);
  assert.equal(publicView.payment, null);
  const summary = assertOk(await api.get(`/self/${shopId}/products`)).items[0];
  assert.equal(summary.soldCount, 5);
  assert.equal(summary.id, productId);

  const mail = await app.db.kysely
    .selectFrom('mail_outbox')
    .selectAll()
    .where('shop_id', '=', shopId)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    mail.map((m) => [m.to_address, m.subject]),
    [
      ['buyer@example.com', `Your order ${invoice.payment.reference} from Selling Shop: how to pay`],
      ['buyer@example.com', `Your order ${invoice.payment.reference} from Selling Shop`],
    ],
    'the checkout mail, then the delivery mail',
  );
  for (const key of ['K1', 'K2']) {
    assert.ok(!mail[0]!.body_text.split('\n').includes(key), 'nothing is delivered before payment');
    assert.ok(mail[1]!.body_text.split('\n').includes(key), `${key} on its own line`);
    assert.ok(mail[1]!.body_html?.includes(`>${key}</pre>`), `${key} in its own block`);
  }
  const events = (
    await app.db.kysely
      .selectFrom('events')
      .select('type')
      .where('shop_id', '=', shopId)
      .orderBy('created_at')
      .execute()
  ).map((e) => e.type);
  assert.deepEqual(
    events.filter((e) => e.startsWith('invoice.')),
    ['invoice.created', 'invoice.completed'],
  );

  const again = await api.post(`${base}/${invoice.id}/process`);
  assertError(again, 409, 'conflict');
  assertError(await api.post(`${base}/nope/process`), 404, 'not_found');
});

test('unpaid invoices expire: stock and coupon uses return, by the worker or at read time', async (t) => {
  const { app, api, shopId, keysVariant, serviceVariant, buy, base, stock } = await setup(t);
  assertOk(await api.post(`/self/${shopId}/coupons`, { name: 'ONCE', discount: 1, isFixed: true, maxUses: 1 }));
  const a = await buy(
    [
      { variant: keysVariant, quantity: 2 },
      { variant: serviceVariant, quantity: 1 },
    ],
    { coupon: 'ONCE' },
  );
  const b = await buy([{ variant: keysVariant, quantity: 1 }]);
  assert.deepEqual(await stock(), [2, 9]);
  const past = Date.now() - 1000;
  await app.db.kysely.updateTable('invoices').set({ expires_at: past }).execute();

  // Read time: no worker ran, yet the invoice reads as expired and cannot be processed.
  assert.equal(assertOk(await api.get(`${base}/${a.id}`)).status, 'expired');
  assertError(await api.post(`${base}/${b.id}/process`), 409, 'conflict');
  assert.equal(await expireOverdue(app.ctx), 0, 'nothing left for the worker');
  assert.deepEqual(await stock(), [5, 10]);
  const coupon = assertOk(await api.get(`/self/${shopId}/coupons`)).items[0];
  assert.equal(coupon.uses, 0);
  const expired = await app.db.kysely
    .selectFrom('events')
    .select('type')
    .where('type', '=', 'invoice.expired')
    .execute();
  assert.equal(expired.length, 2);
  // The coupon and the serials can be used again.
  const c = await buy([{ variant: keysVariant, quantity: 5 }], { coupon: 'ONCE' });
  assert.deepEqual(assertOk(await api.post(`${base}/${c.id}/process`)).parts[0].deliverables, [
    'K1',
    'K2',
    'K3',
    'K4',
    'K5',
  ]);
});

test("a serial variant's stock is a maintained count that always equals its available serials", async (t) => {
  const { app, api, shopId, productId, keysVariant, serviceVariant, buy, base } = await setup(t);
  const db = app.db.kysely;
  const product = `/self/${shopId}/v2/products/${productId}`;
  // The maintained column against a count of the rows, for every variant of the shop; then the
  // stock the owner's API shows for the serial variants named.
  const check = async (step: string, expected: Record<number, number>) => {
    const variants = await db
      .selectFrom('product_variants')
      .select(['id', 'available_serials'])
      .where('shop_id', '=', shopId)
      .execute();
    for (const v of variants) {
      const counted = await db
        .selectFrom('serials')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('variant_id', '=', v.id)
        .where('status', '=', 'available')
        .executeTakeFirstOrThrow();
      assert.equal(v.available_serials, Number(counted.n), `${step}: variant ${v.id}`);
    }
    const shown = new Map(
      assertOk(await api.get(product)).variants.map((v: { id: number; stock: number }) => [v.id, v.stock]),
    );
    for (const [id, n] of Object.entries(expected)) assert.equal(shown.get(Number(id)), n, `${step}: stock of ${id}`);
  };
  await check('created', { [keysVariant]: 5 });

  const keys = (serials: string[]) => ({
    id: keysVariant,
    title: 'Key',
    priceDetails: { amount: 9.99 },
    productType: 'serials',
    asSerials: { serials },
  });
  const service = {
    id: serviceVariant,
    title: 'Support',
    priceDetails: { amount: 5 },
    productType: 'service',
    asService: { text: 'Support text' },
  };
  const edited = assertOk(
    await api.put(product, {
      title: 'Game Key',
      description: 'A key',
      variants: [
        keys(['K1', 'K2', 'K3', 'X1', 'X2', 'X3']),
        service,
        {
          title: 'Gift',
          priceDetails: { amount: 3 },
          productType: 'serials',
          asSerials: { serials: ['G1', 'G2', 'G3'] },
        },
      ],
    }),
  );
  const gift = edited.variants[2].id as number;
  assert.ok(gift > keysVariant);
  await check('serials removed, added, new variant', { [keysVariant]: 6, [gift]: 3 });

  // Parts named in the opposite order of their variants: both are taken off.
  const unpaid = await buy([
    { variant: gift, quantity: 2 },
    { variant: keysVariant, quantity: 1 },
  ]);
  await check('reserved', { [keysVariant]: 5, [gift]: 1 });
  await db
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', '=', unpaid.id)
    .execute();
  assert.equal(assertOk(await api.get(`${base}/${unpaid.id}`)).status, 'expired');
  await check('expired: released', { [keysVariant]: 6, [gift]: 3 });

  const paid = await buy([{ variant: keysVariant, quantity: 2 }]);
  const processed = assertOk(await api.post(`${base}/${paid.id}/process`));
  await check('delivered', { [keysVariant]: 4, [gift]: 3 });
  assertOk(await api.post(`${base}/${paid.id}/replacement`, { partInvoiceId: processed.parts[0].id, quantity: 1 }));
  await check('replacement', { [keysVariant]: 3, [gift]: 3 });
  // A refused replacement (more than is left) takes nothing.
  assertOk(
    await api.put(product, {
      title: 'Game Key',
      description: 'A key',
      variants: [
        keys(['X1']),
        service,
        { id: gift, title: 'Gift', priceDetails: { amount: 3 }, productType: 'serials' },
      ],
    }),
  );
  await check('list shortened', { [keysVariant]: 1, [gift]: 3 });
  assertError(
    await api.post(`${base}/${paid.id}/replacement`, { partInvoiceId: processed.parts[0].id, quantity: 2 }),
    422,
    'unprocessable',
  );
  await check('refused replacement', { [keysVariant]: 1, [gift]: 3 });

  // No longer sold as serials: its available serials are gone, and so is the count.
  assertOk(
    await api.put(product, {
      title: 'Game Key',
      description: 'A key',
      variants: [
        keys(['X1']),
        service,
        {
          id: gift,
          title: 'Gift',
          priceDetails: { amount: 3 },
          productType: 'service',
          asService: { text: 'x', stock: 4 },
        },
      ],
    }),
  );
  await check('became a service', { [keysVariant]: 1, [gift]: 4 });
  const giftRow = await db
    .selectFrom('product_variants')
    .select('available_serials')
    .where('id', '=', gift)
    .executeTakeFirstOrThrow();
  assert.equal(giftRow.available_serials, 0);
});

test('the expiry worker runs on its own', async (t) => {
  const { app, keysVariant, buy, stock } = await setup(t, { INVOICE_EXPIRY_INTERVAL_MS: '50' });
  await buy([{ variant: keysVariant, quantity: 3 }]);
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1 })
    .execute();
  const status = async () =>
    (await app.db.kysely.selectFrom('invoices').select('status').executeTakeFirstOrThrow()).status;
  await waitUntil(async () => (await status()) === 'expired', 'the expiry worker to expire the invoice');
  assert.deepEqual(await stock(), [5, 10]);
});

test('replacements deliver fresh items of the same variant, within the part quantity and the stock', async (t) => {
  const { api, keysVariant, serviceVariant, buy, base, stock } = await setup(t);
  const invoice = await buy([
    { variant: keysVariant, quantity: 2 },
    { variant: serviceVariant, quantity: 1 },
  ]);
  const pending = await api.post(`${base}/${invoice.id}/replacement`, {
    partInvoiceId: invoice.parts[0].id,
    quantity: 1,
  });
  assertError(pending, 409, 'conflict');
  const done = assertOk(await api.post(`${base}/${invoice.id}/process`));
  const keysPart = done.parts[0].id;
  const replaced = assertOk(
    await api.post(`${base}/${invoice.id}/replacement`, { partInvoiceId: keysPart, quantity: 2 }),
  );
  assert.equal(replaced.replacements.length, 1);
  assert.deepEqual(replaced.replacements[0].deliverables, ['K3', 'K4']);
  assert.equal(replaced.replacements[0].partInvoiceId, keysPart);
  assert.deepEqual(replaced.parts[0].deliverables, ['K1', 'K2'], 'the original delivery stays on record');
  assertError(
    await api.post(`${base}/${invoice.id}/replacement`, { partInvoiceId: keysPart, quantity: 2 }),
    422,
    'unprocessable',
  );
  // More than the part holds depends on the invoice, not on the body's shape: a 422.
  assertError(
    await api.post(`${base}/${invoice.id}/replacement`, { partInvoiceId: keysPart, quantity: 3 }),
    422,
    'unprocessable',
  );
  assertError(
    await api.post(`${base}/${invoice.id}/replacement`, { partInvoiceId: keysPart, quantity: 0 }),
    400,
    'validation_error',
  );
  assertError(
    await api.post(`${base}/${invoice.id}/replacement`, { partInvoiceId: 999999, quantity: 1 }),
    400,
    'validation_error',
  );
  const service = assertOk(
    await api.post(`${base}/${invoice.id}/replacement`, { partInvoiceId: done.parts[1].id, quantity: 1 }),
  );
  assert.deepEqual(service.replacements[1].deliverables, ['Support text']);
  assert.deepEqual(await stock(), [1, 8]);
});

test('product.out_of_stock is recorded when an order or a replacement takes the last unit, not before and not for unlimited stock', async (t) => {
  const { app, api, shopId, productId, keysVariant, serviceVariant, buy, base, stock } = await setup(t);
  const outOfStock = async () =>
    (
      await app.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('shop_id', '=', shopId)
        .where('type', '=', 'product.out_of_stock')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => (JSON.parse(e.payload) as { variantId: number }).variantId);
  const first = await buy([
    { variant: keysVariant, quantity: 4 },
    { variant: serviceVariant, quantity: 9 },
  ]);
  assert.deepEqual(await stock(), [1, 1]);
  assert.deepEqual(await outOfStock(), [], 'one unit of each left');
  await buy([{ variant: serviceVariant, quantity: 1 }]);
  assert.deepEqual(await outOfStock(), [serviceVariant], 'the counted stock ran out');
  const refused = await api.post(`/v2/public/shops/${shopId}/invoices`, {
    customerEmail: 'b@example.com',
    gateway: 'tipjar',
    parts: [{ productId, productVariantId: serviceVariant, quantity: 1 }],
  });
  assertError(refused, 422, 'unprocessable');
  assert.deepEqual(await outOfStock(), [serviceVariant], 'a refused order records nothing');
  const done = assertOk(await api.post(`${base}/${first.id}/process`));
  assertOk(await api.post(`${base}/${first.id}/replacement`, { partInvoiceId: done.parts[0].id, quantity: 1 }));
  assert.deepEqual(await stock(), [0, 0]);
  assert.deepEqual(await outOfStock(), [serviceVariant, keysVariant], 'the replacement took the last serial');

  const unlimited = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Unlimited',
      description: 'No stock count',
      variants: [
        { title: 'Any', priceDetails: { amount: 1 }, productType: 'service', asService: { text: 'text', stock: null } },
      ],
    }),
  );
  const order = await api.post(`/v2/public/shops/${shopId}/invoices`, {
    customerEmail: 'c@example.com',
    gateway: 'tipjar',
    parts: [{ productId: unlimited.id, productVariantId: unlimited.variants[0].id, quantity: 50 }],
  });
  assertOk(order);
  assert.deepEqual(await outOfStock(), [serviceVariant, keysVariant], 'unlimited stock never runs out');
});

test('resend writes the delivery e-mail again, to another address when asked', async (t) => {
  const { app, api, shopId, keysVariant, buy, base } = await setup(t);
  const invoice = await buy([{ variant: keysVariant, quantity: 1 }]);
  assertError(await api.post(`${base}/${invoice.id}/resend`, {}), 409, 'conflict');
  assertOk(await api.post(`${base}/${invoice.id}/process`));
  assert.deepEqual(assertOk(await api.post(`${base}/${invoice.id}/resend`, {})), {
    invoiceId: invoice.id,
    to: 'buyer@example.com',
  });
  assertOk(await api.post(`${base}/${invoice.id}/resend`, { email: 'other@example.com' }));
  assertError(await api.post(`${base}/${invoice.id}/resend`, { email: 'not-an-email' }), 400, 'validation_error');
  const [checkoutMail, ...mail] = await app.db.kysely
    .selectFrom('mail_outbox')
    .select(['to_address', 'subject', 'body_text', 'body_html'])
    .where('shop_id', '=', shopId)
    .orderBy('id')
    .execute();
  assert.match(checkoutMail!.subject, /how to pay$/);
  assert.deepEqual(
    mail.map((m) => m.to_address),
    ['buyer@example.com', 'buyer@example.com', 'other@example.com'],
  );
  // A resend is the completion's delivery mail again, word for word.
  for (const again of mail.slice(1)) {
    assert.equal(again.subject, mail[0]!.subject);
    assert.equal(again.body_text, mail[0]!.body_text);
    assert.equal(again.body_html, mail[0]!.body_html);
  }
  assert.ok(mail[0]!.body_text.split('\n').includes('K1'));
});

async function dynamicProduct(api: Client, shopId: number, externalUrl: string) {
  return assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Generated account',
      description: 'd',
      variants: [
        { title: 'One', priceDetails: { amount: 3 }, productType: 'dynamic', asDynamic: { externalUrl, stock: 5 } },
      ],
    }),
  );
}

async function buyDynamic(
  api: Client,
  shopId: number,
  product: { id: number; variants: { id: number }[] },
  quantity = 1,
) {
  return assertOk(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      customerEmail: 'dyn@example.com',
      gateway: 'tipjar',
      parts: [{ productId: product.id, productVariantId: product.variants[0]!.id, quantity }],
      customFields: {},
    }),
  );
}

// The delivery timeout is far above any local answer: it only bounds a hang and decides nothing.
const GENEROUS = { DYNAMIC_DELIVERY_TIMEOUT_MS: '60000' };

test('dynamic products: the order is POSTed to the owner URL; failures are recorded and processing retries', async (t) => {
  const { api, shopId, base } = await setup(t, GENEROUS);
  let mode: 'ok' | 'fail' = 'fail';
  const endpoint = await httpsEndpoint(t, (body) =>
    mode === 'ok' ? { status: 200, body: `ACCOUNT-${body.quantity}-${body.invoiceId}` } : { status: 500, body: 'down' },
  );
  const product = await dynamicProduct(api, shopId, endpoint.url);
  const invoice = await buyDynamic(api, shopId, product, 2);
  const failed = await api.post(`${base}/${invoice.id}/process`);
  assertError(failed, 422, 'unprocessable');
  assert.match(failed.body.errors[0], /^delivery: .*HTTP 500/);
  const recorded = assertOk(await api.get(`${base}/${invoice.id}`));
  assert.equal(recorded.status, 'pending');
  assert.match(recorded.deliveryError, /HTTP 500/);
  assert.ok(
    !recorded.deliveryError.includes('/deliver'),
    'errors name the endpoint by origin, never its path or query',
  );
  mode = 'ok';
  const done = assertOk(await api.post(`${base}/${invoice.id}/process`));
  assert.deepEqual(done.parts[0].deliverables, [`ACCOUNT-2-${invoice.id}`]);
  assert.equal(done.deliveryError, null);
  const last = endpoint.received.at(-1);
  assert.equal(last.invoiceId, invoice.id);
  assert.equal(last.customerEmail, 'dyn@example.com');
  assert.equal(last.quantity, 2);
});

test('a dynamic endpoint that never answers fails at the delivery timeout, recorded on the invoice', async (t) => {
  const { api, shopId, base } = await setup(t, { DYNAMIC_DELIVERY_TIMEOUT_MS: '200' });
  // Holds every request unanswered until the test ends: the timeout is the only way out.
  const { url } = await httpsServer(t, () => undefined);
  const invoice = await buyDynamic(api, shopId, await dynamicProduct(api, shopId, url));
  const failed = await api.post(`${base}/${invoice.id}/process`);
  assertError(failed, 422, 'unprocessable');
  assert.match(failed.body.errors[0], /^delivery: .*no answer within 200 ms$/);
  const recorded = assertOk(await api.get(`${base}/${invoice.id}`));
  assert.equal(recorded.status, 'pending');
  assert.match(recorded.deliveryError, /no answer within 200 ms/);
});

test('a dynamic answer over 64 KiB is a delivery failure, and an endless one is not read past the limit', {
  timeout: 600_000,
}, async (t) => {
  const { api, shopId, base } = await setup(t, GENEROUS);
  let hungUp!: () => void;
  const clientHungUp = new Promise<void>((resolve) => (hungUp = resolve));
  let written = 0;
  const { url } = await httpsServer(t, (_body, _req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 'k');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) written += chunk.length;
    };
    res.on('drain', pump);
    res.on('close', hungUp);
    pump();
  });
  const invoice = await buyDynamic(api, shopId, await dynamicProduct(api, shopId, url));
  const failed = await api.post(`${base}/${invoice.id}/process`);
  assertError(failed, 422, 'unprocessable');
  assert.match(failed.body.errors[0], /^delivery: .*answered more than 65536 bytes$/);
  await clientHungUp;
  assert.ok(written < 64 * 1024 * 1024, `${written} bytes written before shopd hung up`);
  const recorded = assertOk(await api.get(`${base}/${invoice.id}`));
  assert.equal(recorded.status, 'pending');
  assert.deepEqual(recorded.parts[0].deliverables, []);
});

test('owner invoice list: filters, search, and a cursor walk without gaps', async (t) => {
  const { api, productId, keysVariant, serviceVariant, buy, base } = await setup(t);
  const a = await buy([{ variant: keysVariant, quantity: 1 }]);
  const b = await buy([{ variant: serviceVariant, quantity: 1 }], { customerEmail: 'second@example.com' });
  const c = await buy([{ variant: keysVariant, quantity: 1 }]);
  assertOk(await api.post(`${base}/${b.id}/process`));
  const ids = (query: string) =>
    api.get(`${base}?${query}`).then((r) => assertOk(r).items.map((i: { id: string }) => i.id));
  assert.deepEqual(await ids(''), [c.id, b.id, a.id]);
  assert.deepEqual(await ids('status=completed'), [b.id]);
  assert.deepEqual(await ids('status=pending&gateway=tipjar'), [c.id, a.id]);
  assert.deepEqual(await ids('gateway=balance'), []);
  assert.deepEqual(await ids('searchString=SECOND@'), [b.id]);
  assert.deepEqual(await ids(`searchString=${a.id.slice(2, 12)}`), [a.id]);
  // A search's page, and the parts and replacements read for it: the same view as the list's.
  assertOk(
    await api.post(`${base}/${b.id}/replacement`, {
      partInvoiceId: assertOk(await api.get(`${base}/${b.id}`)).parts[0].id,
      quantity: 1,
    }),
  );
  const found = assertOk(await api.get(`${base}?searchString=SECOND@`)).items[0];
  assert.deepEqual(found, assertOk(await api.get(`${base}?status=completed`)).items[0]);
  assert.equal(found.parts.length, 1);
  assert.equal(found.replacements.length, 1);
  const customerId = assertOk(await api.get(`${base}/${b.id}`)).customerId;
  assert.deepEqual(await ids(`customerId=${customerId}`), [b.id]);
  assert.deepEqual(await ids(`productId=${productId}`), [c.id, b.id, a.id]);
  assert.deepEqual(await ids('productId=999999'), []);
  const today = new Date().toISOString().slice(0, 10);
  assert.deepEqual(await ids(`fromDate=${today}&toDate=${today}`), [c.id, b.id, a.id]);
  assert.deepEqual(await ids('toDate=2020-01-01'), []);
  assertError(await api.get(`${base}?fromDate=2026-02-01&toDate=2026-01-01`), 400, 'validation_error');
  assertError(await api.get(`${base}?fromDate=2026-02-30`), 400, 'validation_error');
  assertError(await api.get(`${base}?status=paid`), 400, 'validation_error');
  assertError(await api.get(`${base}?cursor=xyz`), 400, 'validation_error');

  const walked: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: { id: string }[]; nextCursor: string | null; totalCount: number } = assertOk(
      await api.get(`${base}?pageSize=1${cursor ? `&cursor=${cursor}` : ''}`),
    );
    assert.equal(page.totalCount, 3);
    walked.push(...page.items.map((i) => i.id));
    cursor = page.nextCursor;
  } while (cursor);
  assert.deepEqual(walked, [c.id, b.id, a.id]);
});

test('the delivery e-mail reaches the customer through SMTP with what was bought', async (t) => {
  const sink = await smtpSink(t);
  const { app, api, keysVariant, serviceVariant, buy, base } = await setup(t, {
    SMTP_URL: sink.url,
    MAIL_FROM: 'Keys <shop@example.test>',
  });
  const invoice = await buy([
    { variant: keysVariant, quantity: 2 },
    { variant: serviceVariant, quantity: 1 },
  ]);
  assert.equal(await app.mailWorker.runOnce(), 1, 'the checkout mail');
  assertOk(await api.post(`${base}/${invoice.id}/process`));
  assert.equal(await app.mailWorker.runOnce(), 1);
  assert.equal(sink.received.length, 2);
  const mail = sink.received[1]!;
  assert.deepEqual(mail.envelopeTo, ['buyer@example.com']);
  assert.equal(mail.subject, `Your order ${invoice.payment.reference} from Selling Shop`);
  for (const expected of ['K1', 'K2', 'Support text', 'Total: $24.98', 'Game Key (Key) × 2'])
    assert.ok(mail.text.includes(expected), `${expected} in:\n${mail.text}`);
  for (const expected of ['>K1</pre>', '>K2</pre>', '>Support text</pre>', '$24.98', 'Game Key (Key) × 2'])
    assert.ok(mail.html?.includes(expected), `${expected} in:\n${mail.html}`);
  assert.ok(
    !mail.text.split('\n').includes('K3'),
    'only what was delivered (one deliverable a line; the random invoice id may contain "K3")',
  );
  assertOk(await api.post(`${base}/${invoice.id}/resend`, { email: 'copy@example.com' }));
  await app.mailWorker.runOnce();
  assert.deepEqual(sink.received[2]!.envelopeTo, ['copy@example.com']);
  assert.equal(sink.received[2]!.text, mail.text);
  assert.equal(sink.received[2]!.html, mail.html);
});

test('a dynamic URL that turned private after it was saved is refused at delivery, nothing sent', async (t) => {
  const { app, api, shopId, base } = await setup(t, { ALLOW_PRIVATE_WEBHOOKS: 'false' });
  const endpoint = await httpsEndpoint(t, () => ({ status: 200, body: 'SHOULD-NOT-ARRIVE' }));
  // Saved while its name was public; its DNS now answers loopback (the endpoint's own address).
  const product = await dynamicProduct(api, shopId, 'https://shopd-test.invalid/deliver');
  await app.db.kysely
    .updateTable('product_variants')
    .set({ dynamic_url: endpoint.url })
    .where('id', '=', product.variants[0].id)
    .execute();
  const invoice = await buyDynamic(api, shopId, product);
  const refused = await api.post(`${base}/${invoice.id}/process`);
  assertError(refused, 422, 'unprocessable');
  assert.match(refused.body.errors[0], /refused: localhost resolves to a non-public address/);
  assert.equal(endpoint.received.length, 0);
});

test('a serial already sold is never stocked again, even from a list saved after the sale', async (t) => {
  const { api, shopId, productId, keysVariant, buy, base } = await setup(t);
  const invoice = await buy([{ variant: keysVariant, quantity: 2 }]);
  const pending = await buy([{ variant: keysVariant, quantity: 1 }]);
  assertOk(await api.post(`${base}/${invoice.id}/process`));
  const url = `/self/${shopId}/v2/products/${productId}`;
  const product = assertOk(await api.get(url));
  // The owner saves the list as it was before the sale, plus one new key.
  const saved = assertOk(
    await api.put(url, {
      title: product.title,
      description: product.description,
      variants: [
        {
          id: keysVariant,
          title: 'Key',
          priceDetails: { amount: 9.99 },
          productType: 'serials',
          asSerials: { serials: ['K1', 'K2', 'K3', 'K4', 'K5', 'K6'] },
        },
        {
          id: product.variants[1].id,
          title: 'Support',
          priceDetails: { amount: 5 },
          productType: 'service',
          asService: { text: 'Support text' },
        },
      ],
    }),
  );
  assert.deepEqual(saved.variants[0].asSerials.serials, ['K4', 'K5', 'K6'], 'K1, K2 were delivered and K3 is reserved');
  assert.deepEqual(assertOk(await api.post(`${base}/${pending.id}/process`)).parts[0].deliverables, ['K3']);
});

test("a list counts partial days, a customer's invoices and a search with one count each, never every invoice of the shop", async (t) => {
  const { app, api, keysVariant, buy, base } = await setup(t);
  const a = await buy([{ variant: keysVariant, quantity: 1 }]);
  await buy([{ variant: keysVariant, quantity: 1 }], { customerEmail: 'other@example.com' });
  const customerId = assertOk(await api.get(`${base}/${a.id}`)).customerId;
  const counts: string[] = [];
  const counted = (sql: string) => {
    if (/count\(\*\)/i.test(sql) && /from "invoices"/.test(sql)) counts.push(sql);
  };
  const stop = app.db.observeQueries((e) => counted(e.sql));
  t.after(stop);
  // On SQLite a search runs on the reader thread (src/db/reader.ts), which observeQueries does not see.
  const reader = app.db.reader;
  if (reader) {
    const rows = reader.rows.bind(reader);
    reader.rows = (query) => {
      counted(query.sql);
      return rows(query);
    };
  }
  const from = new Date(Date.now() - 3_600_000).toISOString();
  assert.equal(assertOk(await api.get(`${base}?fromDate=${encodeURIComponent(from)}`)).totalCount, 2);
  assert.equal(counts.length, 1, 'the partial day since fromDate was counted');
  assert.equal(assertOk(await api.get(`${base}?customerId=${customerId}`)).totalCount, 1);
  assert.equal(counts.length, 2, "the customer's invoices were counted");
  assert.equal(assertOk(await api.get(`${base}?searchString=other%40`)).totalCount, 1);
  assert.equal(counts.length, 3, 'the search was counted');
  if (engine === 'sqlite') assert.match(counts[2]!, /"invoices_search" match/, 'through the search index');
  else assert.match(counts[2]!, /lower\("invoices"\."customer_email"\) like/, 'the expression pg_trgm indexes');
});

test('overdue invoices read as expired everywhere without the worker: list, status filters, counts, dashboards; their stock is back', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  // More overdue invoices than one expiry batch: every one of them must read as expired.
  const overdue = EXPIRY_BATCH + 5;
  const shop = await sellingShop(api, { serviceStock: overdue + 10 });
  const base = `/self/${shop.shopId}/invoices`;
  const buy = async (email: string) =>
    assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
      }),
    ).id as string;
  const stale: string[] = [];
  for (let i = 0; i < overdue; i++) stale.push(await buy(`late${i}@example.com`));
  // Past their lifetime (the expiry worker is not running: its interval is far away).
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', 'in', stale)
    .execute();
  const fresh = await buy('fresh@example.com');
  const stock = async () =>
    assertOk(await api.get(`/self/${shop.shopId}/v2/products/${shop.productId}`)).variants[1].stock;

  const all = assertOk(await api.get(`${base}?pageSize=100`));
  assert.equal(all.totalCount, overdue + 1);
  assert.deepEqual(all.items[0], { ...all.items[0], id: fresh, status: 'pending' });
  assert.ok(
    all.items.slice(1).every((i: { status: string }) => i.status === 'expired'),
    'the list shows the true status',
  );
  const pending = assertOk(await api.get(`${base}?status=pending`));
  assert.equal(pending.totalCount, 1);
  assert.deepEqual(
    pending.items.map((i: { id: string }) => i.id),
    [fresh],
  );
  const expired = assertOk(await api.get(`${base}?status=expired&pageSize=1`));
  assert.equal(expired.totalCount, overdue);
  assert.equal(await stock(), overdue + 9, 'only the fresh invoice holds stock');
  assert.equal(await expireOverdue(app.ctx), 0, 'nothing was left for the worker');

  // A dashboard read counts an overdue invoice as what it is, too.
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', '=', fresh)
    .execute();
  assert.equal(assertOk(await api.get(`/self/${shop.shopId}/dashboard/general`)).pendingOrders, 0);
  assert.equal(await stock(), overdue + 10);
});

type ListedInvoice = { id: string; total: number; createdAt: string; status: string };

/** Every invoice of a list, walked by cursor `pageSize` at a time. */
async function walkInvoices(api: Client, url: string, pageSize: number): Promise<ListedInvoice[]> {
  const rows: ListedInvoice[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: ListedInvoice[]; nextCursor: string | null } = assertOk(
      await api.get(`${url}${url.includes('?') ? '&' : '?'}pageSize=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`),
    );
    rows.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

test('owner invoice list: every order sorts, filters, searches and walks by cursor both ways', async (t) => {
  const { api, keysVariant, serviceVariant, buy, base } = await setup(t);
  const a = await buy([{ variant: keysVariant, quantity: 1 }]);
  const b = await buy([{ variant: serviceVariant, quantity: 1 }], { customerEmail: 'other@example.com' });
  const c = await buy([{ variant: serviceVariant, quantity: 3 }]);
  const d = await buy([{ variant: keysVariant, quantity: 2 }], { customerEmail: 'other@example.com' });
  const e = await buy([{ variant: serviceVariant, quantity: 1 }]);
  assertOk(await api.post(`${base}/${b.id}/process`));
  assertOk(await api.post(`${base}/${d.id}/process`));
  const ids = (query: string) =>
    api.get(`${base}?${query}`).then((r) => assertOk(r).items.map((i: { id: string }) => i.id));
  const everyId = [a.id, b.id, c.id, d.id, e.id].sort();

  // Totals 9.99, 5, 15, 19.98 and 5: b and e tie, in an order the id decides.
  const [low1, low2] = (await ids('orderBy=total')).slice(0, 2);
  assert.deepEqual([low1, low2].sort(), [b.id, e.id].sort());
  assert.deepEqual(await ids('orderBy=total'), [low1, low2, a.id, c.id, d.id]);
  assert.deepEqual(await ids('orderBy=-total'), [d.id, c.id, a.id, low2, low1]);
  const newest = await ids('');
  assert.deepEqual(await ids('orderBy=-createdAt'), newest);
  assert.deepEqual(await ids('orderBy=createdAt'), [...newest].reverse());
  assert.deepEqual([...newest].sort(), everyId);

  for (const orderBy of ['createdAt', '-createdAt', 'total', '-total']) {
    const listed: ListedInvoice[] = assertOk(await api.get(`${base}?orderBy=${orderBy}`)).items;
    const key = (i: ListedInvoice) => (orderBy.endsWith('total') ? i.total : Date.parse(i.createdAt));
    const sign = orderBy.startsWith('-') ? -1 : 1;
    for (let i = 1; i < listed.length; i++)
      assert.ok(sign * (key(listed[i]!) - key(listed[i - 1]!)) >= 0, `${orderBy}: row ${i} out of order`);
    // A walk by cursor, in pages of 1 and of 2, gives the same rows once each, in the same order.
    for (const pageSize of [1, 2]) {
      const walked = (await walkInvoices(api, `${base}?orderBy=${orderBy}`, pageSize)).map((i) => i.id);
      assert.deepEqual(
        walked,
        listed.map((i) => i.id),
        `${orderBy} by ${pageSize}`,
      );
    }
  }

  // Every filter and the search keep working in every order, walked by cursor too.
  const customerId = assertOk(await api.get(`${base}/${a.id}`)).customerId;
  const today = new Date().toISOString().slice(0, 10);
  const walkIds = async (query: string) => (await walkInvoices(api, `${base}?${query}`, 1)).map((i) => i.id);
  assert.deepEqual(await walkIds('status=completed&orderBy=total'), [b.id, d.id]);
  assert.deepEqual(await walkIds('status=pending&gateway=tipjar&orderBy=-total'), [c.id, a.id, e.id]);
  assert.deepEqual(await walkIds('searchString=OTHER@&orderBy=-total'), [d.id, b.id]);
  assert.deepEqual(
    await walkIds('searchString=OTHER@&orderBy=createdAt'),
    [...newest].reverse().filter((id) => id === b.id || id === d.id),
  );
  assert.deepEqual(await walkIds(`customerId=${customerId}&orderBy=total`), [e.id, a.id, c.id]);
  assert.deepEqual(await walkIds(`productId=${999999}&orderBy=total`), []);
  assert.deepEqual(await walkIds(`fromDate=${today}&toDate=${today}&orderBy=createdAt`), [...newest].reverse());
  assert.deepEqual(await walkIds(`fromDate=${today}&toDate=${today}&orderBy=-total`), await ids('orderBy=-total'));
  assert.deepEqual(await walkIds('toDate=2020-01-01&orderBy=total'), []);
  const paged = assertOk(await api.get(`${base}?orderBy=-total&pageSize=2&pageNumber=2`));
  assert.deepEqual(
    paged.items.map((i: { id: string }) => i.id),
    [a.id, low2],
  );
  assert.equal(paged.totalCount, 5);

  for (const bad of ['orderBy=amount', 'orderBy=%2Btotal', 'orderBy=', 'orderBy=TOTAL']) {
    assertError(await api.get(`${base}?${bad}`), 400, 'validation_error');
  }
  // A cursor answers only the order that returned it: any other is refused, never a wrong page.
  const cursorOf = async (orderBy: string) =>
    assertOk(await api.get(`${base}?pageSize=2${orderBy ? `&orderBy=${orderBy}` : ''}`)).nextCursor as string;
  const orders = ['', 'createdAt', '-createdAt', 'total', '-total'];
  for (const from of orders) {
    const cursor = await cursorOf(from);
    assert.ok(cursor);
    for (const to of orders) {
      const same = (from || '-createdAt') === (to || '-createdAt');
      const res = await api.get(`${base}?cursor=${cursor}${to ? `&orderBy=${to}` : ''}`);
      if (same) assert.equal(assertOk(res).items.length, 3, `${from} -> ${to}`);
      else {
        assertError(res, 400, 'validation_error');
        assert.deepEqual(res.body.errors, ['cursor: is not a cursor this list returned'], `${from} -> ${to}`);
      }
    }
  }
});

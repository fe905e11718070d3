import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { customerSession } from '../helpers/customer-session.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { httpsEndpoint } from '../helpers/https-endpoint.js';

async function setup(t: TestContext, opts: Parameters<typeof sellingShop>[1] = {}) {
  // Requests come from 127.0.0.1, as from a proxy: its country header is believed (issue 36, L6).
  const app = await build(t, { TRUST_PROXY: '127.0.0.1' });
  const api = await owner(app);
  const shop = await sellingShop(api, opts);
  const checkout = (body: object, headers: Record<string, string> = {}) =>
    app
      .inject({ method: 'POST', url: `/v2/public/shops/${shop.shopId}/invoices`, payload: body, headers })
      .then((r) => ({ status: r.statusCode, body: r.json(), headers: r.headers }));
  const order = (over: object = {}) => ({
    customerEmail: 'Buyer@Example.com',
    gateway: 'tipjar',
    parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 2 }],
    ...over,
  });
  const stock = async () => {
    const p = assertOk(await api.get(`/self/${shop.shopId}/v2/products/${shop.productId}`));
    return { keys: p.variants[0].stock, service: p.variants[1].stock };
  };
  /** The headers of a buyer signed in to the customer area (through the mailed code): paying by balance needs them. */
  const signedIn = async (email: string) => ({
    authorization: `Bearer ${await customerSession(app, shop.shopId, email)}`,
  });
  return { app, api, ...shop, checkout, order, stock, signedIn };
}

test('checkout reserves stock and answers a pending invoice with payment instructions', async (t) => {
  const { app, api, shopId, checkout, order, stock } = await setup(t);
  const res = await checkout(order(), { 'user-agent': 'test-agent', 'cf-ipcountry': 'nl' });
  const invoice = assertOk(res);
  assert.match(invoice.id, /^[A-Za-z0-9_-]{24}$/);
  assert.equal(invoice.status, 'pending');
  assert.equal(invoice.total, 19.98);
  assert.equal(invoice.currency, 'USD');
  assert.deepEqual(invoice.parts[0].deliverables, [], 'nothing delivered before payment');
  assert.deepEqual(invoice.payment, {
    gateway: 'tipjar',
    amount: 19.98,
    currency: 'USD',
    reference: invoice.payment.reference,
    handle: 'jar',
    instructions: `Send 19.98 USD to the tip jar "jar" with the note ${invoice.payment.reference}.`,
  });
  // The invoice page's link is on the server's own host, 127.0.0.1 here as the buyer's IP is: left out of the check.
  const text = JSON.stringify({ ...res.body, data: { ...res.body.data, url: undefined } });
  assert.ok(!text.includes('buyer@example.com') && !text.includes('127.0.0.1'), 'no e-mail or IP in the public answer');
  assert.equal(invoice.url, `${app.config.publicUrl}/s/selling-shop/invoices/${invoice.id}`);
  assert.deepEqual(await stock(), { keys: 3, service: 10 });

  const owned = assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`));
  assert.equal(owned.customerEmail, 'buyer@example.com');
  assert.equal(owned.userAgent, 'test-agent');
  assert.equal(owned.country, 'NL');
  const publicView = await app.inject({ method: 'GET', url: `/v2/public/invoices/${invoice.id}` });
  assert.equal(publicView.json().data.status, 'pending');
  const missing = await app.inject({ method: 'GET', url: '/v2/public/invoices/nope-not-there' });
  assertError({ status: missing.statusCode, body: missing.json() }, 404, 'not_found');
});

test('checkout checks run in order and each failure names the part', async (t) => {
  const { api, shopId, productId, keysVariant, serviceVariant, checkout, order, stock } = await setup(t);
  const part = (over: object) => ({ parts: [{ productId, productVariantId: keysVariant, quantity: 1, ...over }] });
  const cases: [string, object, number, string][] = [
    ['bad email', order({ customerEmail: 'nope' }), 400, 'customerEmail'],
    ['unknown gateway', order({ gateway: 'paypal' }), 400, 'gateway'],
    ['no parts', order({ parts: [] }), 400, 'parts'],
    ['zero quantity', order(part({ quantity: 0 })), 400, 'parts[0].quantity'],
    ['unknown product', order(part({ productId: 999999 })), 400, 'parts[0].productId'],
    ['variant of another product', order(part({ productVariantId: 999999 })), 400, 'parts[0].productVariantId'],
    [
      'repeated variant',
      order({
        parts: [
          { productId, productVariantId: keysVariant, quantity: 1 },
          { productId, productVariantId: keysVariant, quantity: 1 },
        ],
      }),
      400,
      'parts[1].productVariantId',
    ],
    ['more than stock', order(part({ quantity: 6 })), 422, 'parts[0].quantity'],
    ['gateway disabled', order({ gateway: 'walletemail' }), 422, 'gateway'],
  ];
  for (const [name, body, status, field] of cases) {
    const res = await checkout(body);
    assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      `${name}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  assert.deepEqual(await stock(), { keys: 5, service: 10 }, 'no failure reserved anything');
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 0);

  // Service stock runs out too.
  const res = await checkout(order({ parts: [{ productId, productVariantId: serviceVariant, quantity: 11 }] }));
  assertError(res, 422, 'unprocessable');
});

test('visibility, holds, limits, gateways and custom fields are enforced', async (t) => {
  const { api, shopId, productId, keysVariant, checkout, order } = await setup(t);
  const url = `/self/${shopId}/v2/products/${productId}`;
  const product = assertOk(await api.get(url));
  const update = (over: object, variantOver: object = {}) =>
    api.put(url, {
      title: product.title,
      description: product.description,
      ...over,
      variants: [
        { id: keysVariant, title: 'Key', priceDetails: { amount: 9.99 }, productType: 'serials', ...variantOver },
      ],
    });

  assertOk(await update({ private: true }));
  assert.ok((await checkout(order())).body.errors[0].startsWith('parts[0].productId: no such product'));
  assertOk(await update({ isInternal: true }));
  assert.equal((await checkout(order())).status, 400, 'internal products cannot be bought publicly');
  assertOk(await update({ onHold: true }));
  assertError(await checkout(order()), 422, 'unprocessable');
  assertOk(await update({}, { asSerials: { minAmount: 3, maxAmount: 4 } }));
  const limits = await checkout(order());
  assertError(limits, 422, 'unprocessable');
  assert.deepEqual(limits.body.errors, ['parts[0].quantity: must be between 3 and 4']);
  assertOk(await update({}, { gateways: [{ gateway: 'balance' }] }));
  assert.deepEqual((await checkout(order())).body.errors, ['parts[0].productVariantId: does not accept tipjar']);

  assertOk(
    await update(
      {},
      {
        customFields: [
          { id: 'nick', name: 'Nick', type: 'text', required: true, regex: '^[a-z]+#\\d{4}$' },
          { id: 'age', name: 'Age', type: 'number' },
          { id: 'tos', name: 'Accept', type: 'checkbox', required: true },
        ],
      },
    ),
  );
  const missing = await checkout(order());
  assertError(missing, 400, 'validation_error');
  assert.deepEqual(missing.body.errors, ['customFields.nick: is required', 'customFields.tos: is required']);
  const wrong = await checkout(order({ customFields: { nick: 'Bob', age: 'old', tos: false } }));
  assert.deepEqual(wrong.body.errors, [
    'customFields.nick: does not match the required format',
    'customFields.age: must be a number',
    'customFields.tos: must be checked',
  ]);
  const good = assertOk(
    await checkout(order({ customFields: { nick: 'bob#1234', age: '42', tos: true, extra: 'dropped' } })),
  );
  assert.deepEqual(assertOk(await api.get(`/self/${shopId}/invoices/${good.id}`)).customFields, {
    nick: 'bob#1234',
    age: 42,
    tos: true,
  });

  assertOk(await api.put(`/self/${shopId}/settings/status`, { onHold: true }));
  assert.deepEqual((await checkout(order())).body.errors, ['shop: is on hold']);
});

test('a password-protected shop needs the key', async (t) => {
  const { api, shopId, checkout, order } = await setup(t);
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'letmein!' }));
  assertError(await checkout(order()), 403, 'shop_locked');
  assertError(await checkout(order({ key: 'wrong' })), 403, 'shop_locked');
  assertOk(await checkout(order({ key: 'letmein!' })));
});

test('the blacklist refuses e-mails, IPs, ranges and countries', async (t) => {
  const { api, shopId, checkout, order } = await setup(t);
  const block = async (type: string, data: string) =>
    assertOk(await api.post(`/self/${shopId}/blacklist`, { type, data })).id;
  const emailBlock = await block('email', 'BUYER@example.com');
  assert.deepEqual((await checkout(order())).body.errors, ['customerEmail: is blocked by the shop']);
  assertOk(await api.delete(`/self/${shopId}/blacklist/${emailBlock}`));
  const ipBlock = await block('ip', '127.0.0.0/8');
  assert.deepEqual((await checkout(order())).body.errors, ['ip: is blocked by the shop']);
  assertOk(await api.delete(`/self/${shopId}/blacklist/${ipBlock}`));
  await block('country', 'DE');
  assertError(await checkout(order(), { 'cf-ipcountry': 'de' }), 422, 'unprocessable');
  assertOk(await checkout(order(), { 'cf-ipcountry': 'FR' }));
});

test('coupons discount the order, respect restrictions and count uses', async (t) => {
  const { api, shopId, productId, checkout, order } = await setup(t);
  assertOk(await api.post(`/self/${shopId}/coupons`, { name: 'TENOFF', discount: 10, isFixed: false, maxUses: 1 }));
  assertOk(
    await api.post(`/self/${shopId}/coupons`, {
      name: 'FIVE',
      discount: 5,
      isFixed: true,
      restrictToGateways: ['balance'],
    }),
  );
  const invoice = assertOk(await checkout(order({ coupon: 'tenoff' })));
  assert.equal(invoice.subtotal, 19.98);
  assert.equal(invoice.discount, 1.99, 'floor of 10 % of 19.98');
  assert.equal(invoice.total, 17.99);
  assert.equal(invoice.coupon, 'TENOFF');
  assertError(await checkout(order({ coupon: 'TENOFF' })), 422, 'unprocessable');
  assertError(await checkout(order({ coupon: 'NOPE' })), 422, 'unprocessable');
  assertError(await checkout(order({ coupon: 'FIVE' })), 422, 'unprocessable');
  const coupons = assertOk(await api.get(`/self/${shopId}/coupons`)).items;
  assert.equal(coupons.find((c: { name: string }) => c.name === 'TENOFF').uses, 1);
  assert.ok(productId);
});

test('the balance gateway completes at once when the balance covers it, else 422 and nothing kept', async (t) => {
  const { app, api, shopId, checkout, order, stock, signedIn } = await setup(t);
  const poor = await checkout(
    order({ gateway: 'balance', customerEmail: 'new@example.com' }),
    await signedIn('new@example.com'),
  );
  assertError(poor, 422, 'unprocessable');
  assert.deepEqual(await stock(), { keys: 5, service: 10 });
  // Create the customer through a first order, then fund them.
  const first = assertOk(await checkout(order()));
  const customerId = assertOk(await api.get(`/self/${shopId}/invoices/${first.id}`)).customerId;
  assertOk(await api.post(`/self/${shopId}/customers/${customerId}/balance/add`, { amount: 20 }));
  assertOk(await api.post(`/self/${shopId}/invoices/${first.id}/process`));
  const buyer = await signedIn('buyer@example.com');
  const paid = assertOk(await checkout(order({ gateway: 'balance' }), buyer));
  assert.equal(paid.status, 'completed');
  assert.equal(paid.parts[0].deliverables.length, 2);
  const customer = assertOk(await api.get(`/self/${shopId}/customers/${customerId}`));
  assert.equal(customer.balance, 0.02);
  assert.equal(customer.totalSpent, 39.96);
  assert.equal(customer.ordersCount, 2);
  assertError(await checkout(order({ gateway: 'balance' }), buyer), 422, 'unprocessable');
  const ledger = await app.db.kysely
    .selectFrom('balance_entries')
    .select(['amount', 'balance_after', 'kind'])
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  assert.deepEqual(ledger, [
    { amount: 2000, balance_after: 2000, kind: 'credit' },
    { amount: -1998, balance_after: 2, kind: 'purchase' },
  ]);
});

test('an Idempotency-Key retry of a checkout answers the first invoice and reserves once', async (t) => {
  const { checkout, order, stock } = await setup(t);
  const headers = { 'idempotency-key': 'checkout-1' };
  const first = await checkout(order(), headers);
  const retry = await checkout(order(), headers);
  assert.deepEqual(retry.body, first.body);
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.deepEqual(await stock(), { keys: 3, service: 10 });
  assertError(await checkout(order({ customerEmail: 'other@example.com' }), headers), 409, 'conflict');
});

test('a balance checkout whose dynamic delivery fails is cancelled in the same request: stock back, nothing charged, nothing to process', async (t) => {
  const { app, api, shopId, checkout, order, signedIn } = await setup(t);
  const endpoint = await httpsEndpoint(t, () => ({ status: 500, body: 'down' }));
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Generated account',
      description: 'd',
      variants: [
        {
          title: 'One',
          priceDetails: { amount: 3 },
          productType: 'dynamic',
          asDynamic: { externalUrl: endpoint.url, stock: 5 },
        },
      ],
    }),
  );
  const dynamicStock = async () =>
    assertOk(await api.get(`/self/${shopId}/v2/products/${product.id}`)).variants[0].stock;
  // A first order creates the customer; fund them well beyond the price.
  const first = assertOk(await checkout(order()));
  const customerId = assertOk(await api.get(`/self/${shopId}/invoices/${first.id}`)).customerId;
  assertOk(await api.post(`/self/${shopId}/customers/${customerId}/balance/add`, { amount: 50 }));

  const res = await checkout(
    order({
      gateway: 'balance',
      parts: [{ productId: product.id, productVariantId: product.variants[0].id, quantity: 2 }],
    }),
    await signedIn('buyer@example.com'),
  );
  assertError(res, 422, 'unprocessable');
  assert.match(res.body.message, /not placed/);
  assert.ok(!JSON.stringify(res.body).includes(endpoint.url), "the owner's delivery URL is not shown to the buyer");
  assert.equal(endpoint.received.length, 1, 'the delivery was attempted');

  const [failed] = assertOk(await api.get(`/self/${shopId}/invoices?gateway=balance`)).items;
  assert.equal(failed.status, 'cancelled');
  assert.match(failed.deliveryError, /HTTP 500/, 'the owner sees why');
  assert.equal(await dynamicStock(), 5, 'the reserved stock is back');
  assert.equal(assertOk(await api.get(`/self/${shopId}/customers/${customerId}`)).balance, 50, 'nothing was charged');
  assertError(await api.post(`/self/${shopId}/invoices/${failed.id}/process`), 409, 'conflict');
  assert.equal(endpoint.received.length, 1, 'processing did not deliver');
  const events = await app.db.kysely
    .selectFrom('events')
    .select('type')
    .where('shop_id', '=', shopId)
    .where('type', '=', 'invoice.cancelled')
    .execute();
  assert.equal(events.length, 1);
});

test("chat integration: a required chatUserId is enforced at checkout and kept on the invoice for the owner's bot", async (t) => {
  const { api, shopId, productId, keysVariant, checkout, order } = await setup(t);
  const other = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Plain',
      description: 'd',
      variants: [{ title: 'One', priceDetails: { amount: 1 }, productType: 'service', asService: { text: 'x' } }],
    }),
  );
  const plainPart = { productId: other.id, productVariantId: other.variants[0].id, quantity: 1 };
  const keysPart = { productId, productVariantId: keysVariant, quantity: 1 };
  const integrate = (chatIntegration: object) =>
    api.put(`/self/${shopId}/products/bulk/update/chat-integration`, { productIds: [productId], chatIntegration });
  const chatUserOf = async (invoiceId: string) =>
    assertOk(await api.get(`/self/${shopId}/invoices/${invoiceId}`)).chatUserId;

  assertOk(await integrate({ enabled: true, required: true, guildId: '42', roleIds: ['7'] }));
  const missing = await checkout(order({ parts: [plainPart, keysPart] }));
  assertError(missing, 400, 'validation_error');
  assert.deepEqual(missing.body.errors, [
    "chatUserId: is required: parts[1] (Game Key) grants roles in the shop's chat server",
  ]);
  const notDigits = await checkout(order({ parts: [keysPart], chatUserId: 'buyer#1234' }));
  assertError(notDigits, 400, 'validation_error');
  assert.ok(notDigits.body.errors[0].startsWith('chatUserId: '), JSON.stringify(notDigits.body.errors));
  const given = assertOk(await checkout(order({ parts: [plainPart, keysPart], chatUserId: '123456789012345678' })));
  assert.equal(await chatUserOf(given.id), '123456789012345678');
  assert.ok(!JSON.stringify(given).includes('123456789012345678'), 'not in the public view');

  // Enabled but optional: accepted without, kept with; not enabled: never kept.
  assertOk(await integrate({ enabled: true, required: false }));
  assert.equal(await chatUserOf(assertOk(await checkout(order({ parts: [keysPart] }))).id), null);
  assert.equal(await chatUserOf(assertOk(await checkout(order({ parts: [keysPart], chatUserId: '55' }))).id), '55');
  assertOk(await integrate({ enabled: false, required: true }));
  assert.equal(await chatUserOf(assertOk(await checkout(order({ parts: [keysPart], chatUserId: '55' }))).id), null);
  assert.equal(await chatUserOf(assertOk(await checkout(order({ parts: [plainPart] }))).id), null);
});

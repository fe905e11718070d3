import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, type Client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { productBody } from '../helpers/owner-operations.js';

async function setup(t: import('node:test').TestContext) {
  // blockVpn can be turned on only where the server has VPN ranges.
  const app = await build(t, { VPN_RANGES_FILE: 'test/fixtures/vpn-ranges.txt' });
  const api = await owner(app);
  const shop = await createShop(api);
  return { app, api, shopId: shop.id, url: `/self/${shop.id}/v2/products` };
}

const serialsVariant = (serials: unknown, extra: object = {}) => ({
  title: 'Key',
  priceDetails: { amount: 9.99 },
  productType: 'serials',
  asSerials: { serials, ...extra },
});

test('creates products of the three delivery types with derived stock', async (t) => {
  const { api, url } = await setup(t);
  const product = assertOk(
    await api.post(url, {
      title: 'Game Bundle',
      description: 'All of them',
      shortDescription: 'Short',
      seo: { metaTitle: 'Meta', metaDescription: 'Desc' },
      unlisted: true,
      customerNote: 'Thanks!',
      chatIntegration: { enabled: true, guildId: '123' },
      variants: [
        serialsVariant('AAA\nBBB\n\n  CCC  \n', { minAmount: 1, maxAmount: 5 }),
        {
          title: 'Support',
          priceDetails: { amount: 25, currency: 'USD' },
          productType: 'service',
          asService: { text: 'We will contact you', stock: 10 },
          warranty: { text: '30 days', durationSeconds: 2592000 },
        },
        {
          title: 'Account',
          priceDetails: { amount: 0.5 },
          productType: 'dynamic',
          asDynamic: { externalUrl: 'https://example.com/deliver' },
          gateways: [{ gateway: 'balance', price: 0.45, rules: { blockVpn: true } }],
        },
      ],
    }),
  );
  assert.equal(product.path, 'game-bundle');
  assert.equal(product.unlisted, true);
  assert.equal(product.private, false);
  assert.deepEqual(product.seo, { metaTitle: 'Meta', metaDescription: 'Desc', imageUrl: null });
  assert.deepEqual(product.chatIntegration, { enabled: true, required: false, guildId: '123', roleIds: [] });
  const [serials, service, dynamic] = product.variants;
  assert.deepEqual(serials.asSerials.serials, ['AAA', 'BBB', 'CCC']);
  assert.equal(serials.stock, 3);
  assert.equal(serials.asSerials.maxAmount, 5);
  assert.deepEqual(serials.priceDetails, { amount: 9.99, currency: 'USD' });
  assert.deepEqual(serials.gateways, []);
  assert.equal(service.stock, 10);
  assert.equal(service.asService.text, 'We will contact you');
  assert.deepEqual(service.warranty, { text: '30 days', durationSeconds: 2592000 });
  assert.equal(dynamic.stock, null, 'omitted stock is unlimited');
  assert.equal(dynamic.asDynamic.externalUrl, 'https://example.com/deliver');
  assert.deepEqual(dynamic.gateways, [{ gateway: 'balance', rules: { blockVpn: true }, price: 0.45 }]);
  assert.deepEqual(assertOk(await api.get(`${url}/${product.id}`)), product);
});

test('serials: arrays or delimited text, duplicates removed only on request', async (t) => {
  const { api, url } = await setup(t);
  const dup = assertOk(await api.post(url, { ...productBody('Dup'), variants: [serialsVariant(['X', 'X', 'Y'])] }));
  assert.deepEqual(dup.variants[0].asSerials.serials, ['X', 'X', 'Y']);
  const unique = assertOk(
    await api.post(url, {
      ...productBody('Unique'),
      variants: [serialsVariant('X;X;Y;', { delimiter: ';', removeDuplicates: true })],
    }),
  );
  assert.deepEqual(unique.variants[0].asSerials.serials, ['X', 'Y']);
  assert.equal(unique.variants[0].stock, 2);
  const crlf = assertOk(await api.post(url, { ...productBody('Windows'), variants: [serialsVariant('A\r\nB\r\n')] }));
  assert.deepEqual(crlf.variants[0].asSerials.serials, ['A', 'B']);
});

test('serial contents are never part of a list', async (t) => {
  const { api, shopId, url } = await setup(t);
  assertOk(
    await api.post(url, {
      ...productBody('Secretive'),
      variants: [serialsVariant(['SECRET-SERIAL-1', 'SECRET-SERIAL-2'])],
    }),
  );
  for (const listUrl of [url, `/self/${shopId}/products`]) {
    const res = await api.get(listUrl);
    assertOk(res);
    assert.ok(!JSON.stringify(res.body).includes('SECRET-SERIAL'), listUrl);
  }
  const [item] = assertOk(await api.get(url)).items;
  assert.equal(item.variants[0].stock, 2);
  assert.equal(item.variants[0].asSerials.serials, undefined);
});

test('paths: generated unique from the title, given ones refused when taken, freed by deletion', async (t) => {
  const { api, shopId, url } = await setup(t);
  const a = assertOk(await api.post(url, productBody('Same Title')));
  const b = assertOk(await api.post(url, productBody('Same Title')));
  assert.equal(a.path, 'same-title');
  assert.equal(b.path, 'same-title-2');
  const taken = await api.post(url, productBody('Other', { path: 'same-title' }));
  assertError(taken, 409, 'conflict');
  assert.deepEqual(taken.body.errors, ['path: is already taken']);
  assertOk(await api.delete(`/self/${shopId}/products/${a.id}`));
  assert.equal(assertOk(await api.post(url, productBody('Other', { path: 'same-title' }))).path, 'same-title');
  // Another shop may use the same path.
  const other = await createShop(api, 'Second');
  assert.equal(assertOk(await api.post(`/self/${other.id}/v2/products`, productBody('Same Title'))).path, 'same-title');
});

test('full update: variants edited by id, added without, removed when missing; stock kept when omitted', async (t) => {
  const { app, api, url } = await setup(t);
  const created = assertOk(
    await api.post(url, {
      ...productBody('Editable'),
      variants: [
        serialsVariant(['K1', 'K2', 'K3']),
        { title: 'Svc', priceDetails: { amount: 5 }, productType: 'service', asService: { text: 't', stock: 7 } },
        serialsVariant(['Z']),
      ],
    }),
  );
  const [keys, svc, gone] = created.variants;
  const keptIds = await app.db.kysely
    .selectFrom('serials')
    .select(['id', 'value'])
    .where('variant_id', '=', keys.id)
    .where('value', 'in', ['K2', 'K3'])
    .execute();
  const updated = assertOk(
    await api.put(`${url}/${created.id}`, {
      title: 'Edited',
      description: 'new',
      variants: [
        { ...serialsVariant(['K2', 'K3', 'K4']), id: keys.id, title: 'Keys v2', priceDetails: { amount: 12 } },
        {
          title: 'Svc',
          priceDetails: { amount: 6 },
          productType: 'service',
          asService: { text: 'changed' },
          id: svc.id,
        },
        {
          title: 'Brand new',
          priceDetails: { amount: 1 },
          productType: 'service',
          asService: { text: 'n', stock: null },
        },
      ],
    }),
  );
  assert.equal(updated.title, 'Edited');
  assert.equal(updated.path, 'editable', 'omitted path keeps the path');
  assert.deepEqual(updated.variants.map((v: { id: number }) => v.id).slice(0, 2), [keys.id, svc.id]);
  assert.ok(!updated.variants.some((v: { id: number }) => v.id === gone.id));
  assert.equal(updated.variants[0].title, 'Keys v2');
  assert.deepEqual(updated.variants[0].asSerials.serials, ['K2', 'K3', 'K4']);
  assert.equal(updated.variants[1].stock, 7, 'omitted stock keeps the stock');
  assert.equal(updated.variants[1].asService.text, 'changed');
  assert.equal(updated.variants[2].stock, null);
  const stillThere = await app.db.kysely
    .selectFrom('serials')
    .select(['id', 'value'])
    .where('variant_id', '=', keys.id)
    .where('value', 'in', ['K2', 'K3'])
    .execute();
  assert.deepEqual(stillThere, keptIds, 'serials that stay keep their rows');
  const removed = await app.db.kysely
    .selectFrom('product_variants')
    .select('deleted_at')
    .where('id', '=', gone.id)
    .executeTakeFirstOrThrow();
  assert.ok(removed.deleted_at !== null, 'a removed variant stays as history');

  // Omitting serials keeps them.
  const again = assertOk(
    await api.put(`${url}/${created.id}`, {
      title: 'Edited',
      description: 'new',
      variants: [{ id: keys.id, title: 'K', priceDetails: { amount: 12 }, productType: 'serials' }],
    }),
  );
  assert.deepEqual(again.variants[0].asSerials.serials, ['K2', 'K3', 'K4']);
});

test('update refuses foreign or repeated variant ids and changes nothing', async (t) => {
  const { api, url } = await setup(t);
  const a = assertOk(await api.post(url, productBody('A')));
  const b = assertOk(await api.post(url, productBody('B')));
  const before = assertOk(await api.get(`${url}/${a.id}`));
  const foreign = await api.put(`${url}/${a.id}`, {
    ...productBody('A2'),
    variants: [{ ...productBody('x').variants[0], id: b.variants[0].id }],
  });
  assertError(foreign, 400, 'validation_error');
  assert.deepEqual(foreign.body.errors, ['variants[0].id: is not a variant of this product']);
  const twice = await api.put(`${url}/${a.id}`, {
    ...productBody('A2'),
    variants: [
      { ...productBody('x').variants[0], id: a.variants[0].id },
      { ...productBody('x').variants[0], id: a.variants[0].id },
    ],
  });
  assertError(twice, 400, 'validation_error');
  assert.deepEqual(assertOk(await api.get(`${url}/${a.id}`)), before);
  assertError(await api.put(`${url}/999999`, productBody('nope')), 404, 'not_found');
  assertError(await api.get(`${url}/999999`), 404, 'not_found');
});

const variant = (over: object) => ({ ...productBody('x').variants[0], ...over });
const badBodies: [string, unknown, string][] = [
  ['no title', { description: 'd', variants: [variant({})] }, 'title'],
  ['blank title', { title: '', description: 'd', variants: [variant({})] }, 'title'],
  ['no description', { title: 't', variants: [variant({})] }, 'description'],
  ['no variants', { title: 't', description: 'd', variants: [] }, 'variants'],
  [
    'zero price',
    productBody('t', { variants: [variant({ priceDetails: { amount: 0 } })] }),
    'variants[0].priceDetails.amount',
  ],
  [
    'negative price',
    productBody('t', { variants: [variant({ priceDetails: { amount: -1 } })] }),
    'variants[0].priceDetails.amount',
  ],
  [
    'price as string',
    productBody('t', { variants: [variant({ priceDetails: { amount: '9.99' } })] }),
    'variants[0].priceDetails.amount',
  ],
  [
    'sub-cent price',
    productBody('t', { variants: [variant({ priceDetails: { amount: 9.999 } })] }),
    'variants[0].priceDetails.amount',
  ],
  [
    'other currency',
    productBody('t', { variants: [variant({ priceDetails: { amount: 1, currency: 'EUR' } })] }),
    'variants[0].priceDetails.currency',
  ],
  ['unknown type', productBody('t', { variants: [variant({ productType: 'physical' })] }), 'variants[0].productType'],
  [
    'service without text',
    productBody('t', { variants: [variant({ productType: 'service' })] }),
    'variants[0].asService',
  ],
  [
    'dynamic over http',
    productBody('t', {
      variants: [variant({ productType: 'dynamic', asDynamic: { externalUrl: 'http://example.com' } })],
    }),
    'variants[0].asDynamic.externalUrl',
  ],
  [
    'min above max',
    productBody('t', { variants: [variant({ asSerials: { serials: [], minAmount: 5, maxAmount: 2 } })] }),
    'variants[0].asSerials.maxAmount',
  ],
  [
    'zero min',
    productBody('t', { variants: [variant({ asSerials: { serials: [], minAmount: 0 } })] }),
    'variants[0].asSerials.minAmount',
  ],
  [
    'negative stock',
    productBody('t', { variants: [variant({ productType: 'service', asService: { text: 'x', stock: -1 } })] }),
    'variants[0].asService.stock',
  ],
  [
    'unknown gateway',
    productBody('t', { variants: [variant({ gateways: [{ gateway: 'paypal' }] })] }),
    'variants[0].gateways[0].gateway',
  ],
  [
    'gateway twice',
    productBody('t', { variants: [variant({ gateways: [{ gateway: 'balance' }, { gateway: 'balance' }] })] }),
    'variants[0].gateways[1].gateway',
  ],
  [
    'bad regex',
    productBody('t', { variants: [variant({ customFields: [{ name: 'n', type: 'text', regex: '([a-z' }] })] }),
    'variants[0].customFields[0].regex',
  ],
  [
    'bad field type',
    productBody('t', { variants: [variant({ customFields: [{ name: 'n', type: 'date' }] })] }),
    'variants[0].customFields[0].type',
  ],
  [
    'duplicate field ids',
    productBody('t', {
      variants: [
        variant({
          customFields: [
            { name: 'Nick', type: 'text' },
            { name: 'nick', type: 'text' },
          ],
        }),
      ],
    }),
    'variants[0].customFields[1].id',
  ],
  ['bad path', productBody('t', { path: 'Not A Path' }), 'path'],
  ['long meta title', productBody('t', { seo: { metaTitle: 'x'.repeat(71) } }), 'seo.metaTitle'],
  ['long meta description', productBody('t', { seo: { metaDescription: 'x'.repeat(161) } }), 'seo.metaDescription'],
  [
    'redirect not https',
    productBody('t', { variants: [variant({ redirectUrl: 'ftp://x' })] }),
    'variants[0].redirectUrl',
  ],
  ['flag not boolean', productBody('t', { private: 'yes' }), 'private'],
];

test('bad product bodies are a 400 naming the field, and create nothing', async (t) => {
  const { api, url } = await setup(t);
  for (const [name, body, field] of badBodies) {
    const res = await api.post(url, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      `${name}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  assert.equal(assertOk(await api.get(url)).totalCount, 0);
});

test('dynamic delivery URLs on loopback or private addresses are a 400 when saved, unless private ones are allowed', async (t) => {
  const app = await build(t, { ALLOW_PRIVATE_WEBHOOKS: 'false' });
  const api = await owner(app);
  const url = `/self/${(await createShop(api)).id}/v2/products`;
  const dynamic = (externalUrl: string) => ({
    title: 'Account',
    priceDetails: { amount: 1 },
    productType: 'dynamic',
    asDynamic: { externalUrl },
  });
  const privateUrls = [
    'https://127.0.0.1/deliver',
    'https://localhost:8443/deliver',
    'https://10.1.2.3/',
    'https://192.168.0.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/',
    'https://[fd00::1]/',
    'https://[::ffff:127.0.0.1]/',
  ];
  for (const externalUrl of privateUrls) {
    const res = await api.post(url, productBody('t', { variants: [serialsVariant(['A']), dynamic(externalUrl)] }));
    assertError(res, 400, 'validation_error');
    assert.match(
      res.body.errors[0],
      /^variants\[1\]\.asDynamic\.externalUrl: resolves to a non-public address/,
      externalUrl,
    );
  }
  assert.equal(assertOk(await api.get(url)).totalCount, 0, 'nothing was created');

  // A name that does not resolve (yet) is accepted: delivery checks the address it connects to.
  const product = assertOk(
    await api.post(url, productBody('t', { variants: [dynamic('https://shopd-test.invalid/deliver')] })),
  );
  for (const externalUrl of privateUrls) {
    const res = await api.put(
      `${url}/${product.id}`,
      productBody('t', { variants: [{ ...dynamic(externalUrl), id: product.variants[0].id }] }),
    );
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^variants\[0\]\.asDynamic\.externalUrl: /, externalUrl);
  }
  assert.equal(
    assertOk(await api.get(`${url}/${product.id}`)).variants[0].asDynamic.externalUrl,
    'https://shopd-test.invalid/deliver',
    'nothing changed',
  );

  const allowed = await build(t, { ALLOW_PRIVATE_WEBHOOKS: 'true' });
  const other = await owner(allowed);
  const local = assertOk(
    await other.post(
      `/self/${(await createShop(other)).id}/v2/products`,
      productBody('t', { variants: [dynamic('https://localhost:8443/deliver')] }),
    ),
  );
  assert.equal(local.variants[0].asDynamic.externalUrl, 'https://localhost:8443/deliver');
});

test('prices follow the currency minor units', async (t) => {
  const { api, shopId, url } = await setup(t);
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'JPY' }));
  assertError(
    await api.post(url, productBody('t', { variants: [variant({ priceDetails: { amount: 9.5 } })] })),
    400,
    'validation_error',
  );
  assert.equal(
    assertOk(await api.post(url, productBody('t', { variants: [variant({ priceDetails: { amount: 1500 } })] })))
      .variants[0].priceDetails.amount,
    1500,
  );
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'KWD' }));
  const kwd = assertOk(
    await api.post(url, productBody('k', { variants: [variant({ priceDetails: { amount: 1.234 } })] })),
  );
  assert.deepEqual(kwd.variants[0].priceDetails, { amount: 1.234, currency: 'KWD' });
  // 0.29 * 100 is 28.999999999999996 in floating point: still exactly 29 cents.
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'USD' }));
  assert.equal(
    assertOk(await api.post(url, productBody('c', { variants: [variant({ priceDetails: { amount: 0.29 } })] })))
      .variants[0].priceDetails.amount,
    0.29,
  );
});

test('changing the currency keeps the price numbers', async (t) => {
  const { api, shopId, url } = await setup(t);
  const p = assertOk(
    await api.post(
      url,
      productBody('P', {
        variants: [variant({ priceDetails: { amount: 9.99 }, gateways: [{ gateway: 'balance', price: 8.49 }] })],
      }),
    ),
  );
  const price = async () => assertOk(await api.get(`${url}/${p.id}`)).variants[0];
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'EUR' }));
  assert.deepEqual((await price()).priceDetails, { amount: 9.99, currency: 'EUR' });
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'KWD' }));
  assert.deepEqual((await price()).priceDetails, { amount: 9.99, currency: 'KWD' });
  assertOk(await api.put(`/self/${shopId}/settings/currency`, { currency: 'JPY' }));
  const jpy = await price();
  assert.deepEqual(jpy.priceDetails, { amount: 10, currency: 'JPY' }, 'rounded to the yen');
  assert.equal(jpy.gateways[0].price, 8);
  const summary = assertOk(await api.get(`/self/${shopId}/products`)).items[0];
  assert.deepEqual(summary.minPrice, { amount: 10, currency: 'JPY' });
});

async function walk(api: Client, url: string, pageSize: number): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: { id: number }[]; nextCursor: string | null } = assertOk(
      await api.get(`${url}${url.includes('?') ? '&' : '?'}pageSize=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`),
    );
    ids.push(...page.items.map((i) => i.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

test('lists order, page, search and walk by cursor in every order', async (t) => {
  const { api, shopId, url } = await setup(t);
  const specs = [
    ['Delta', 4],
    ['alpha', 1],
    ['Charlie', 3],
    ['bravo', 2],
    ['Echo', 2],
  ] as const;
  const made: { id: number; title: string; price: number }[] = [];
  for (const [title, price] of specs) {
    const p = assertOk(
      await api.post(url, productBody(title, { variants: [variant({ priceDetails: { amount: price } })] })),
    );
    made.push({ id: p.id, title, price });
  }
  const newest = [...made].reverse().map((p) => p.id);
  const page1 = assertOk(await api.get(`${url}?pageSize=2`));
  assert.deepEqual(
    page1.items.map((p: { id: number }) => p.id),
    newest.slice(0, 2),
  );
  assert.equal(page1.totalCount, 5);
  assert.equal(page1.totalPages, 3);
  const page3 = assertOk(await api.get(`${url}?pageSize=2&pageNumber=3`));
  assert.deepEqual(
    page3.items.map((p: { id: number }) => p.id),
    newest.slice(4),
  );
  assert.equal(page3.nextCursor, null);

  const byTitle = [...made].sort((a, b) => a.title.localeCompare(b.title, 'en', { sensitivity: 'base' }));
  const expected: Record<string, number[]> = {
    '-createdAt': newest,
    createdAt: made.map((p) => p.id),
    price: [...made].sort((a, b) => a.price - b.price || a.id - b.id).map((p) => p.id),
    '-price': [...made].sort((a, b) => b.price - a.price || b.id - a.id).map((p) => p.id),
  };
  for (const [orderBy, ids] of Object.entries(expected)) {
    for (const base of [url, `/self/${shopId}/products`]) {
      assert.deepEqual(await walk(api, `${base}?orderBy=${orderBy}`, 2), ids, `${base} ${orderBy}`);
    }
  }
  // Titles sort by the database's collation; what matters is that the walk is complete and stable.
  const titleWalk = await walk(api, `${url}?orderBy=title`, 2);
  assert.deepEqual([...titleWalk].sort(), byTitle.map((p) => p.id).sort());
  assert.deepEqual(await walk(api, `${url}?orderBy=-title`, 2), [...titleWalk].reverse());

  const search = assertOk(await api.get(`${url}?searchString=HARL`));
  assert.deepEqual(
    search.items.map((p: { title: string }) => p.title),
    ['Charlie'],
  );
  assert.equal(assertOk(await api.get(`${url}?searchString=%25`)).totalCount, 0, 'LIKE wildcards are literal');

  for (const bad of [
    'orderBy=newest',
    'pageSize=101',
    'pageSize=0',
    'pageNumber=0',
    'cursor=garbage',
    `orderBy=title&cursor=${page1.nextCursor}`,
    // Both orders' values are numbers: only the order the cursor names tells them apart.
    `orderBy=price&cursor=${page1.nextCursor}`,
    `orderBy=createdAt&cursor=${page1.nextCursor}`,
  ]) {
    assertError(await api.get(`${url}?${bad}`), 400, 'validation_error');
  }
});

test('summary rows carry lowest price, total stock and units sold', async (t) => {
  const { api, shopId, url } = await setup(t);
  assertOk(
    await api.post(
      url,
      productBody('Limited', {
        variants: [
          variant({ priceDetails: { amount: 3 } }),
          { title: 'S', priceDetails: { amount: 2.5 }, productType: 'service', asService: { text: 't', stock: 4 } },
        ],
      }),
    ),
  );
  assertOk(
    await api.post(
      url,
      productBody('Unlimited', {
        variants: [{ title: 'S', priceDetails: { amount: 1 }, productType: 'service', asService: { text: 't' } }],
      }),
    ),
  );
  const rows = assertOk(await api.get(`/self/${shopId}/products?orderBy=title`)).items;
  const limited = rows.find((r: { title: string }) => r.title === 'Limited');
  assert.deepEqual(limited.minPrice, { amount: 2.5, currency: 'USD' });
  assert.equal(limited.totalStock, 7);
  assert.equal(limited.soldCount, 0);
  assert.equal(rows.find((r: { title: string }) => r.title === 'Unlimited').totalStock, null);
});

test('deleting removes the product from the catalog and its listing, keeping its rows', async (t) => {
  const { app, api, shopId, url } = await setup(t);
  const p = assertOk(await api.post(url, productBody('Doomed')));
  const listing = await app.db.kysely
    .selectFrom('listings')
    .select('id')
    .where('product_id', '=', p.id)
    .executeTakeFirst();
  assert.ok(listing, 'a product gets a listing');
  assertOk(await api.delete(`/self/${shopId}/products/${p.id}`));
  assertError(await api.get(`${url}/${p.id}`), 404, 'not_found');
  assertError(await api.delete(`/self/${shopId}/products/${p.id}`), 404, 'not_found');
  assert.equal(assertOk(await api.get(url)).totalCount, 0);
  assert.equal(
    await app.db.kysely.selectFrom('listings').select('id').where('product_id', '=', p.id).executeTakeFirst(),
    undefined,
  );
  const serials = await app.db.kysely.selectFrom('serials').select('id').where('shop_id', '=', shopId).execute();
  assert.equal(serials.length, 3, 'rows stay for orders that point at them');
});

test('parallel creates with one title all get distinct paths', async (t) => {
  const { api, url } = await setup(t);
  const results = await Promise.all(Array.from({ length: 8 }, () => api.post(url, productBody('Rush'))));
  const paths = results.map((r) => assertOk(r).path);
  assert.equal(new Set(paths).size, 8);
});

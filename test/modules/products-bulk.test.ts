import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { pngImage } from '../helpers/multipart.js';
import { productBody } from '../helpers/owner-operations.js';

async function setup(t: TestContext, count = 3) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const ids: number[] = [];
  for (let i = 0; i < count; i++)
    ids.push(assertOk(await api.post(`/self/${shop.id}/v2/products`, productBody(`P${i}`))).id);
  const all = async () => assertOk(await api.get(`/self/${shop.id}/v2/products?pageSize=100`)).items;
  return { app, api, shopId: shop.id, ids, all, base: `/self/${shop.id}/products/bulk` };
}

test('bulk visibility, customer note, chat integration and custom fields', async (t) => {
  const { api, ids, all, base } = await setup(t);
  const [a, b, c] = ids as [number, number, number];
  assert.deepEqual(
    assertOk(await api.put(`${base}/update/visibility`, { productIds: [a, b, a], private: true, onHold: true })),
    { updated: 2 },
  );
  assert.deepEqual(assertOk(await api.put(`${base}/update/customer-note`, { productIds: [b, c], note: 'Enjoy' })), {
    updated: 2,
  });
  assertOk(
    await api.put(`${base}/update/chat-integration`, {
      productIds: [c],
      chatIntegration: { enabled: true, required: true, guildId: '42', roleIds: ['7'] },
    }),
  );
  assertOk(
    await api.put(`${base}/update/custom-fields`, {
      productIds: [a, c],
      customFields: [{ name: 'Steam ID', type: 'number', required: true }],
    }),
  );
  const byId = new Map((await all()).map((p: { id: number }) => [p.id, p]));
  const [pa, pb, pc] = [byId.get(a), byId.get(b), byId.get(c)] as any[];
  assert.deepEqual([pa.private, pa.onHold, pa.unlisted], [true, true, false]);
  assert.deepEqual([pc.private, pc.onHold], [false, false]);
  assert.equal(pb.customerNote, 'Enjoy');
  assert.equal(pa.customerNote, null);
  assert.deepEqual(pc.chatIntegration, { enabled: true, required: true, guildId: '42', roleIds: ['7'] });
  assert.deepEqual(pa.variants[0].customFields, [
    { id: 'steam-id', name: 'Steam ID', type: 'number', required: true, placeholder: null, regex: null },
  ]);
  assert.deepEqual(pb.variants[0].customFields, []);
});

test('bulk payment methods add and remove gateways on every variant', async (t) => {
  const { api, shopId, ids, all } = await setup(t, 2);
  const url = `/self/${shopId}/v2/products/bulk/update/payment-methods`;
  assertOk(await api.put(url, { productIds: ids, gatewaysList: { balance: false, tipjar: false } }));
  let gateways = (await all())[0].variants[0].gateways.map((g: { gateway: string }) => g.gateway);
  assert.ok(!gateways.includes('balance') && !gateways.includes('tipjar'));
  assert.equal(gateways.length, 7, 'the rest of the providers stay allowed');
  assertOk(await api.put(url, { productIds: [ids[0]], gatewaysList: { balance: true } }));
  gateways = (await all())
    .find((p: { id: number }) => p.id === ids[0])
    .variants[0].gateways.map((g: { gateway: string }) => g.gateway);
  assert.ok(gateways.includes('balance'));
  const unknown = await api.put(url, { productIds: ids, gatewaysList: { paypal: true } });
  assertError(unknown, 400, 'validation_error');
  assert.deepEqual(unknown.body.errors, ['gatewaysList.paypal: is not a gateway']);
  const none = Object.fromEntries(
    [
      'cryptocommerce',
      'virtual-payments',
      'tipjar',
      'balance',
      'cardconnect',
      'walletemail',
      'mobilecash',
      'wallet-ff',
      'cardreader',
    ].map((g) => [g, false]),
  );
  // Whether a variant keeps a gateway depends on what it has: a business rule, not a malformed body.
  assertError(await api.put(url, { productIds: ids, gatewaysList: none }), 422, 'unprocessable');
});

test('a bulk call naming one id that is not this shop’s is a 404 and changes nothing', async (t) => {
  const { app, api, ids, all, base } = await setup(t);
  const other = await owner(app);
  const foreignShop = await createShop(other, 'Other');
  const foreignId = assertOk(await other.post(`/self/${foreignShop.id}/v2/products`, productBody('Theirs'))).id;
  const before = await all();
  const productIds = [...ids, foreignId];
  const calls: [string, string, object][] = [
    ['PUT', `${base}/update/visibility`, { productIds, private: true }],
    ['PUT', `${base}/update/customer-note`, { productIds, note: 'x' }],
    ['PUT', `${base}/update/chat-integration`, { productIds, chatIntegration: { enabled: true } }],
    ['PUT', `${base}/update/custom-fields`, { productIds, customFields: [] }],
    ['POST', `${base}/delete`, { productIds }],
    [
      'PUT',
      `${base.replace('/products/bulk', '/v2/products/bulk')}/update/payment-methods`,
      { productIds, gatewaysList: { balance: false } },
    ],
  ];
  for (const [method, url, body] of calls) {
    const res = await api.request(method, url, body);
    assertError(res, 404, 'not_found');
    assert.deepEqual(res.body.errors, [`productIds: no product ${foreignId} in this shop`]);
  }
  assertError(await api.request('POST', `${base}/delete`, { productIds: [999999] }), 404, 'not_found');
  assert.deepEqual(await all(), before);
  assert.equal(assertOk(await other.get(`/self/${foreignShop.id}/v2/products/${foreignId}`)).private, false);
});

test('bulk bodies are validated: 1–500 ids, at least one flag', async (t) => {
  const { api, all, base } = await setup(t, 1);
  const before = await all();
  for (const body of [
    { productIds: [], private: true },
    { productIds: Array.from({ length: 501 }, (_, i) => i + 1), private: true },
    { productIds: ['1'], private: true },
    { productIds: [0], private: true },
    { private: true },
  ]) {
    assertError(await api.put(`${base}/update/visibility`, body), 400, 'validation_error');
  }
  const noFlag = await api.put(`${base}/update/visibility`, { productIds: [before[0].id] });
  assertError(noFlag, 400, 'validation_error');
  assertError(await api.put(`${base}/update/customer-note`, { productIds: [before[0].id] }), 400, 'validation_error');
  assertError(
    await api.put(`${base}/update/chat-integration`, {
      productIds: [before[0].id],
      chatIntegration: { enabled: 'yes' },
    }),
    400,
    'validation_error',
  );
  assert.deepEqual(await all(), before);
});

test('bulk delete removes every named product', async (t) => {
  const { api, ids, all, base } = await setup(t);
  assert.deepEqual(assertOk(await api.post(`${base}/delete`, { productIds: ids.slice(0, 2) })), { updated: 2 });
  assert.deepEqual(
    (await all()).map((p: { id: number }) => p.id),
    ids.slice(2),
  );
});

test('thumbnail and SEO image: uploaded, served, replaced, removed with the product', async (t) => {
  const { app, api, shopId, ids } = await setup(t, 1);
  const id = ids[0]!;
  const url = `/self/${shopId}/v2/products/${id}`;
  const first = assertOk(await api.upload(`${url}/thumbnail`, await pngImage(8, 8, '#ff0000'))).url;
  assert.match(first, /^\/uploads\/[\w-]+\.png$/);
  const served = await app.inject({ method: 'GET', url: first });
  assert.equal(served.statusCode, 200);
  assert.equal(served.headers['content-type'], 'image/png');
  assert.equal(assertOk(await api.get(url)).thumbnailUrl, first);

  const second = assertOk(await api.upload(`${url}/thumbnail`, await pngImage(8, 8, '#00ff00'))).url;
  assert.notEqual(second, first);
  assert.equal((await app.inject({ method: 'GET', url: first })).statusCode, 404, 'the replaced file is gone');
  const seo = assertOk(await api.upload(`${url}/seo/image`, await pngImage())).url;
  assert.equal(assertOk(await api.get(url)).seo.imageUrl, seo);

  assertError(await api.upload(`/self/${shopId}/v2/products/999999/thumbnail`, await pngImage()), 404, 'not_found');
  assertError(await api.upload(`${url}/thumbnail`, Buffer.from('not an image')), 415, 'unsupported_media_type');
  assert.equal(assertOk(await api.get(url)).thumbnailUrl, second, 'a refused upload changes nothing');

  assertOk(await api.delete(`/self/${shopId}/products/${id}`));
  for (const gone of [second, seo]) assert.equal((await app.inject({ method: 'GET', url: gone })).statusCode, 404);
});

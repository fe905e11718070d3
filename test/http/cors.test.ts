import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 21: CORS for the public API only, so a storefront on another origin can check out from a
 * browser. Origins come from CORS_ORIGINS (`*` any, empty none); owner paths never answer CORS.
 */
const SHOP_ORIGIN = 'https://storefront.example.com';

type Headers = Record<string, string | string[] | number | undefined>;
const corsHeaders = (headers: Headers) => Object.keys(headers).filter((h) => h.startsWith('access-control-'));

function preflight(app: FastifyInstance, url: string, origin: string, method = 'POST') {
  return app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type, idempotency-key',
    },
  });
}

async function shopApp(t: Parameters<typeof build>[0], corsOrigins?: string) {
  const app = await build(t, corsOrigins === undefined ? {} : { CORS_ORIGINS: corsOrigins });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const order = {
    customerEmail: 'buyer@example.com',
    gateway: 'tipjar',
    parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
  };
  const invoiceCount = async () =>
    (await app.db.kysely.selectFrom('invoices').select('id').where('shop_id', '=', shop.shopId).execute()).length;
  return { app, api, ...shop, order, invoiceCount };
}

test('listed origins get CORS on the public API: checkout preflight, the checkout itself, pages, errors and 304s', async (t) => {
  const { app, api, shopId, order, invoiceCount } = await shopApp(t, `${SHOP_ORIGIN}, https://other.example`);
  const checkoutUrl = `/v2/public/shops/${shopId}/invoices`;

  const pre = await preflight(app, checkoutUrl, SHOP_ORIGIN);
  assert.equal(pre.statusCode, 204);
  assert.equal(pre.body, '');
  assert.equal(pre.headers['access-control-allow-origin'], SHOP_ORIGIN);
  assert.match(String(pre.headers['access-control-allow-methods']), /\bPOST\b/);
  const allowed = String(pre.headers['access-control-allow-headers']).toLowerCase();
  assert.match(allowed, /\bcontent-type\b/);
  assert.match(allowed, /\bidempotency-key\b/);
  assert.match(allowed, /\bx-altcha\b/, 'a storefront elsewhere may send a solved challenge (src/modules/challenge)');
  assert.match(String(pre.headers.vary), /Origin/i);
  assert.equal(pre.headers['access-control-allow-credentials'], undefined, 'no cookies, no credentials');
  assert.equal(await invoiceCount(), 0, 'a preflight runs nothing');

  const bought = await app.inject({
    method: 'POST',
    url: checkoutUrl,
    headers: { origin: SHOP_ORIGIN, 'idempotency-key': 'browser-1' },
    payload: order,
  });
  assert.equal(bought.statusCode, 200, bought.body);
  assert.equal(bought.headers['access-control-allow-origin'], SHOP_ORIGIN);
  const exposed = String(bought.headers['access-control-expose-headers']).toLowerCase();
  for (const header of ['x-request-id', 'idempotent-replayed', 'etag', 'retry-after'])
    assert.ok(exposed.includes(header), `${header} in ${exposed}`);
  assert.equal(await invoiceCount(), 1);
  // The buyer's own calls: the invoice page and cancelling it.
  const id = bought.json().data.id as string;
  const page = await app.inject({ method: 'GET', url: `/v2/public/invoices/${id}`, headers: { origin: SHOP_ORIGIN } });
  assert.equal(page.headers['access-control-allow-origin'], SHOP_ORIGIN);
  const cancelPre = await preflight(app, `/v2/public/invoices/${id}/cancel`, SHOP_ORIGIN);
  assert.equal(cancelPre.statusCode, 204);

  // Every origin of the list, each answered with its own.
  const other = await app.inject({
    method: 'GET',
    url: `/v2/public/shops/${shopId}/main`,
    headers: { origin: 'https://other.example' },
  });
  assert.equal(other.statusCode, 200);
  assert.equal(other.headers['access-control-allow-origin'], 'https://other.example');
  // Cached pages, revalidations and errors carry it too, so the page can read them.
  const main = await app.inject({
    method: 'GET',
    url: `/v2/public/shops/${shopId}/main`,
    headers: { origin: SHOP_ORIGIN },
  });
  assert.equal(main.headers['access-control-allow-origin'], SHOP_ORIGIN);
  const notModified = await app.inject({
    method: 'GET',
    url: `/v2/public/shops/${shopId}/main`,
    headers: { origin: SHOP_ORIGIN, 'if-none-match': String(main.headers.etag) },
  });
  assert.equal(notModified.statusCode, 304);
  assert.equal(notModified.headers['access-control-allow-origin'], SHOP_ORIGIN);
  for (const url of ['/v2/public/shops/no-such-shop/main', '/v2/public/shops/0/main']) {
    const refused = await app.inject({ method: 'GET', url, headers: { origin: SHOP_ORIGIN } });
    assert.ok(refused.statusCode >= 400);
    assert.equal(refused.headers['access-control-allow-origin'], SHOP_ORIGIN, url);
  }

  // An origin not listed, and a request without Origin, get no CORS header at all.
  const evil = await app.inject({
    method: 'GET',
    url: `/v2/public/shops/${shopId}/main`,
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(evil.statusCode, 200);
  assert.deepEqual(corsHeaders(evil.headers), []);
  const evilPre = await preflight(app, checkoutUrl, 'https://evil.example');
  assert.equal(evilPre.statusCode, 405);
  assert.deepEqual(corsHeaders(evilPre.headers), []);
  assert.equal(evilPre.json().code, 'method_not_allowed');
  const plain = await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}/main` });
  assert.deepEqual(corsHeaders(plain.headers), []);

  // Owner paths never answer CORS, whatever the origin.
  const ownerRead = await app.inject({
    method: 'GET',
    url: '/self/shops',
    headers: { origin: SHOP_ORIGIN, authorization: `Bearer ${api.key}` },
  });
  assert.equal(ownerRead.statusCode, 200);
  assert.deepEqual(corsHeaders(ownerRead.headers), []);
  const ownerPre = await preflight(app, `/self/${shopId}/invoices/${id}/process`, SHOP_ORIGIN);
  assert.equal(ownerPre.statusCode, 405);
  assert.deepEqual(corsHeaders(ownerPre.headers), []);
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${id}`)).status, 'pending');

  // The preflight route makes no path known: unknown public paths stay 404, and Allow lists the real methods.
  const unknown = await app.inject({ method: 'GET', url: '/v2/public/nope', headers: { origin: SHOP_ORIGIN } });
  assert.equal(unknown.statusCode, 404);
  const wrongMethod = await app.inject({ method: 'PUT', url: `/v2/public/shops/${shopId}/main` });
  assert.equal(wrongMethod.statusCode, 405);
  assert.equal(wrongMethod.headers.allow, 'GET, HEAD');
});

test('CORS_ORIGINS=* lets any origin call the public API, still not the owner API', async (t) => {
  const { app, api, shopId } = await shopApp(t, '*');
  const pre = await preflight(app, `/v2/public/shops/${shopId}/invoices`, 'https://anyone.example');
  assert.equal(pre.statusCode, 204);
  assert.equal(pre.headers['access-control-allow-origin'], '*');
  const page = await app.inject({
    method: 'GET',
    url: `/v2/public/shops/${shopId}/listings`,
    headers: { origin: 'https://anyone.example' },
  });
  assert.equal(page.headers['access-control-allow-origin'], '*');
  const ownerRead = await app.inject({
    method: 'GET',
    url: `/self/${shopId}/settings`,
    headers: { origin: 'https://anyone.example', authorization: `Bearer ${api.key}` },
  });
  assert.equal(ownerRead.statusCode, 200);
  assert.deepEqual(corsHeaders(ownerRead.headers), []);
});

test('without CORS_ORIGINS no answer carries a CORS header, and OPTIONS is answered as before', async (t) => {
  const { app, shopId } = await shopApp(t);
  assert.deepEqual(app.config.corsOrigins, []);
  const pre = await preflight(app, `/v2/public/shops/${shopId}/invoices`, SHOP_ORIGIN);
  assert.equal(pre.statusCode, 405);
  assert.equal(pre.headers.allow, 'POST');
  assert.deepEqual(corsHeaders(pre.headers), []);
  const page = await app.inject({
    method: 'GET',
    url: `/v2/public/shops/${shopId}/main`,
    headers: { origin: SHOP_ORIGIN },
  });
  assert.equal(page.statusCode, 200);
  assert.deepEqual(corsHeaders(page.headers), []);
});

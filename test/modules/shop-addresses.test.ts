import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { expireOverdue } from '../../src/modules/orders/index.js';
import { shopAtAddress } from '../../src/modules/shops/index.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop, sellingShop } from '../helpers/factories.js';
import { selectsDuring } from '../helpers/queries.js';

/**
 * Issue 21, shop addresses: the custom domain setting and the storefront address of the Shop view,
 * the public JSON API addressed by subdomain, and the `url` of invoices.
 */

async function get(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, text: res.body, headers: res.headers };
}

async function post(app: FastifyInstance, url: string, payload: object) {
  const res = await app.inject({ method: 'POST', url, payload });
  return { status: res.statusCode, body: res.json() };
}

test('a custom domain is stored lower-case, unique across all shops, shown in the Shop view, and cleared by null', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const other = await owner(app);
  const shop = await createShop(api, 'Domain Shop');
  const rival = await createShop(other, 'Rival Shop');
  const base = app.config.publicUrl;
  assert.equal(shop.customDomain, null);
  assert.equal(shop.storefrontUrl, `${base}/s/${shop.subdomain}`);

  const set = assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: 'Shop.Example.COM.' }));
  assert.equal(set.customDomain, 'shop.example.com');
  assert.equal(set.storefrontUrl, 'http://shop.example.com', 'the scheme of PUBLIC_URL');
  const settings = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.equal(settings.customDomain, 'shop.example.com');
  assert.equal(settings.storefrontUrl, 'http://shop.example.com');
  const listed = assertOk(await api.get('/self/shops'))[0];
  assert.deepEqual([listed.customDomain, listed.storefrontUrl], ['shop.example.com', 'http://shop.example.com']);
  // Setting it again, in any spelling, is no conflict with itself.
  assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: 'shop.example.com' }));

  for (const taken of ['shop.example.com', 'SHOP.EXAMPLE.COM', 'shop.example.com.']) {
    const res = await other.put(`/self/${rival.id}/settings/domain`, { domain: taken });
    assertError(res, 409, 'conflict');
    assert.deepEqual(res.body.errors, ['domain: is already taken']);
  }
  assert.equal(assertOk(await other.get(`/self/${rival.id}/settings`)).customDomain, null);

  const cleared = assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: null }));
  assert.equal(cleared.customDomain, null);
  assert.equal(cleared.storefrontUrl, `${base}/s/${shop.subdomain}`);
  // Free again: the rival takes it; both shops had none meanwhile (several nulls are fine).
  assert.equal(
    assertOk(await other.put(`/self/${rival.id}/settings/domain`, { domain: 'shop.example.com' })).customDomain,
    'shop.example.com',
  );
  assertError(await api.put(`/self/${shop.id}/settings/domain`, { domain: 'shop.example.com' }), 409, 'conflict');

  // Another account's key: 404, nothing changes.
  assertError(await other.put(`/self/${shop.id}/settings/domain`, { domain: 'evil.example.com' }), 404, 'not_found');
  assert.equal(assertOk(await api.get(`/self/${shop.id}/settings`)).customDomain, null);
});

test('hosts that cannot lead to one shop are a 400 naming domain, and change nothing', async (t) => {
  const app = await build(t, { PUBLIC_URL: 'https://api.example.org', STOREFRONT_DOMAIN: 'shops.example.net' });
  const api = await owner(app);
  const shop = await createShop(api, 'Careful Shop');
  assert.equal(shop.storefrontUrl, `https://${shop.subdomain}.shops.example.net`, 'the subdomain host');
  const refused = [
    '1.2.3.4',
    '10.0.0.1.',
    '[::1]',
    '::1',
    'localhost',
    'app.localhost',
    'shops.example.net',
    'Shop-1.Shops.Example.NET',
    'api.example.org',
    'nodot',
    'under_score.example.com',
    '-dash.example.com',
    'dash-.example.com',
    'a..example.com',
    '.example.com',
    `${'a'.repeat(64)}.example.com`,
    `${'abcdefghi.'.repeat(25)}example.com`,
    `${'abcdefghi.'.repeat(24)}example.co.ukx`, // 254 characters
    'http://shop.example.com',
    'shop.example.com/path',
    'shop.example.com:8080',
    'shop example.com',
    '',
  ];
  for (const domain of refused) {
    const res = await api.put(`/self/${shop.id}/settings/domain`, { domain });
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.every((e: string) => e.startsWith('domain: ')),
      `${domain}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  assertError(await api.put(`/self/${shop.id}/settings/domain`, {}), 400, 'validation_error');
  assertError(await api.put(`/self/${shop.id}/settings/domain`, { domain: 7 }), 400, 'validation_error');
  assert.equal(assertOk(await api.get(`/self/${shop.id}/settings`)).customDomain, null);

  // A sibling of the storefront domain, the longest name and a numeric label that is not the last are hosts like any other.
  const longest = `${'abcdefghi.'.repeat(24)}example.co.uk.`; // 253 characters and the trailing dot
  for (const domain of ['shop.example.net', '1.2.3.shop.example', longest]) {
    const set = assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain }));
    assert.equal(set.customDomain, domain.replace(/\.$/, ''));
    assert.equal(set.storefrontUrl, `https://${domain.replace(/\.$/, '')}`);
  }
});

test('shopAtAddress finds the shop by subdomain or domain in one read; a request Host in any form finds its domain', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Found Shop');
  assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: 'found.example.com' }));
  const ctx = app.ctx;
  let found: { id: number } | undefined;
  assert.equal(
    await selectsDuring(app, async () => (found = await shopAtAddress(ctx, { subdomain: shop.subdomain }))),
    1,
  );
  assert.equal(found?.id, shop.id);
  for (const host of ['found.example.com', 'FOUND.example.com:8443', 'found.example.com.', ' found.example.com ']) {
    assert.equal(await selectsDuring(app, async () => (found = await shopAtAddress(ctx, { domain: host }))), 1);
    assert.equal(found?.id, shop.id, host);
  }
  assert.equal(await shopAtAddress(ctx, { domain: 'other.example.com' }), undefined);
  assert.equal(await shopAtAddress(ctx, { domain: '' }), undefined);
  assert.equal(await shopAtAddress(ctx, { subdomain: 'no-such-shop' }), undefined);
});

test("changing the subdomain or the domain empties the shop's cached pages", async (t) => {
  const app = await build(t, { INVOICE_EXPIRY_INTERVAL_MS: String(24 * 60 * 60 * 1000) });
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const main = () => get(app, `/v2/public/shops/${shopId}/main`);
  const cached = async () => selectsDuring(app, main);
  assert.equal((await main()).status, 200);
  assert.equal(await cached(), 0, 'a hit');
  assertOk(await api.put(`/self/${shopId}/settings/domain`, { domain: 'cached.example.com' }));
  assert.ok((await cached()) > 0, 'a miss after the domain change');
  assert.equal(await cached(), 0);
  assertOk(await api.put(`/self/${shopId}/settings/subdomain`, { newSubDomain: 'renamed-shop' }));
  assert.ok((await cached()) > 0, 'a miss after the subdomain change');
  assertOk(await api.put(`/self/${shopId}/settings/domain`, { domain: null }));
  assert.ok((await cached()) > 0, 'a miss after the domain is cleared');
});

test('the public API takes the subdomain wherever it takes a shop id', async (t) => {
  const app = await build(t, {
    RATE_LIMIT_PUBLIC_MAX: '0',
    INVOICE_EXPIRY_INTERVAL_MS: String(24 * 60 * 60 * 1000),
  });
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  const { subdomain } = assertOk(await api.get(`/self/${shopId}/settings`));
  // Another shop, so that a mix-up of the two would show.
  await sellingShop(api);

  for (const page of ['/main', '/listings', '/listings/game-key', '/feedbacks', '/faqs']) {
    const byId = await get(app, `/v2/public/shops/${shopId}${page}`);
    const byName = await get(app, `/v2/public/shops/${subdomain}${page}`);
    assert.equal(byName.status, 200, `${page}: ${byName.text}`);
    assert.deepEqual(byName.body, byId.body, page);
    assert.equal(byName.body.data.mainDetails.id, shopId);
    assertError(await get(app, `/v2/public/shops/no-such-shop${page}`), 404, 'not_found');
    assertError(await get(app, `/v2/public/shops/admin${page}`), 404, 'not_found');
  }

  // The page cache serves the subdomain's pages: the second request is identical, costs only the
  // subdomain's lookup, and revalidates to a 304.
  const url = `/v2/public/shops/${subdomain}/listings/game-key`;
  const first = await get(app, url);
  let second: Awaited<ReturnType<typeof get>> | undefined;
  assert.equal(await selectsDuring(app, async () => (second = await get(app, url))), 1, 'one read: the subdomain');
  assert.equal(second!.text, first.text);
  assert.equal(second!.headers.etag, first.headers.etag);
  const revalidated = await get(app, url, { 'if-none-match': String(first.headers.etag) });
  assert.equal(revalidated.status, 304);
  assert.equal(revalidated.text, '');

  // Checkout and tickets by subdomain land in that shop.
  const order = {
    customerEmail: 'buyer@example.com',
    gateway: 'tipjar',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
  };
  const invoice = assertOk(await post(app, `/v2/public/shops/${subdomain}/invoices`, order));
  assert.equal(invoice.shopId, shopId);
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`)).status, 'pending');
  const listing = (await get(app, `/v2/public/shops/${shopId}/listings/game-key`)).body.data.listing;
  assert.equal(listing.product.variants[0].stock, 4, 'the checkout emptied the cached page of the shop');
  assertError(await post(app, '/v2/public/shops/no-such-shop/invoices', order), 404, 'not_found');
  const ticket = assertOk(
    await post(app, `/v2/public/shops/${subdomain}/tickets`, {
      email: 'buyer@example.com',
      title: 'Where is my key?',
      message: 'Hello',
      invoiceId: invoice.id,
    }),
  );
  const tickets = assertOk(await api.get(`/self/${shopId}/tickets`)).items;
  assert.deepEqual(
    tickets.map((x: { id: number }) => x.id),
    [ticket.id],
  );
  assertError(
    await post(app, '/v2/public/shops/no-such-shop/tickets', { email: 'a@example.com', title: 'T', message: 'M' }),
    404,
    'not_found',
  );

  // A numeric id still works, bad ones are a 400, and a subdomain follows its shop when renamed.
  assertOk(await post(app, `/v2/public/shops/${shopId}/invoices`, { ...order, customerEmail: 'two@example.com' }));
  for (const bad of ['0', '-3', '2147483648', '1.5', 'Bad_Name', 'ab'])
    assertError(await get(app, `/v2/public/shops/${bad}/main`), 400, 'validation_error');
  assertOk(await api.put(`/self/${shopId}/settings/subdomain`, { newSubDomain: 'moved-shop' }));
  assertError(await get(app, `/v2/public/shops/${subdomain}/main`), 404, 'not_found');
  assert.equal((await get(app, '/v2/public/shops/moved-shop/main')).body.data.mainDetails.id, shopId);
});

async function invoiceShop(t: TestContext, env: Record<string, string> = {}) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0', ...env });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  const buy = async () =>
    assertOk(
      await post(app, `/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: 'buyer@example.com',
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
      }),
    );
  return { app, api, ...shop, subdomain: subdomain as string, buy };
}

test('invoices carry the url of their storefront page, in both views, which follows the shop address', async (t) => {
  const { app, api, shopId, subdomain, buy } = await invoiceShop(t, { PUBLIC_URL: 'https://shop.example.org/' });
  const invoice = await buy();
  const expected = `https://shop.example.org/s/${subdomain}/invoices/${invoice.id}`;
  assert.equal(invoice.url, expected, 'the checkout answer');
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`)).url, expected);
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).items[0].url, expected);
  assert.equal((await get(app, `/v2/public/invoices/${invoice.id}`)).body.data.url, expected);
  assert.equal(assertOk(await api.post(`/self/${shopId}/invoices/${invoice.id}/process`)).url, expected);

  assertOk(await api.put(`/self/${shopId}/settings/domain`, { domain: 'keys.example.com' }));
  const moved = `https://keys.example.com/invoices/${invoice.id}`;
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`)).url, moved);
  assert.equal((await get(app, `/v2/public/invoices/${invoice.id}`)).body.data.url, moved);
});

test('the subdomain host is the base of invoice links when the server has a storefront domain', async (t) => {
  const { api, shopId, subdomain, buy } = await invoiceShop(t, {
    PUBLIC_URL: 'https://api.example.org',
    STOREFRONT_DOMAIN: 'shops.example.net',
  });
  const invoice = await buy();
  assert.equal(invoice.url, `https://${subdomain}.shops.example.net/invoices/${invoice.id}`);
  assert.equal(
    assertOk(await api.get(`/self/${shopId}/invoices/${invoice.id}`)).url,
    `https://${subdomain}.shops.example.net/invoices/${invoice.id}`,
  );
});

test('invoice webhooks carry the same url, also for an expiry the worker applies', async (t) => {
  const { app, api, shopId, subdomain, buy } = await invoiceShop(t);
  assertOk(
    await api.post(`/self/${shopId}/webhooks`, {
      url: 'http://127.0.0.1:9/hook',
      events: ['invoice.created', 'invoice.completed', 'invoice.expired', 'invoice.cancelled'],
    }),
  );
  const paid = await buy();
  const done = assertOk(await api.post(`/self/${shopId}/invoices/${paid.id}/process`));
  const lapsed = await buy();
  await app.db.kysely
    .updateTable('invoices')
    .set({ expires_at: Date.now() - 1 })
    .where('id', '=', lapsed.id)
    .execute();
  assert.equal(await expireOverdue(app.ctx), 1);
  const dropped = await buy();
  assertOk(await post(app, `/v2/public/invoices/${dropped.id}/cancel`, {}));

  const events = await app.db.kysely
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('shop_id', '=', shopId)
    .where('type', 'like', 'invoice.%')
    .execute();
  const link = (id: string) => `${app.config.publicUrl}/s/${subdomain}/invoices/${id}`;
  const seen = events.map((e) => {
    const data = JSON.parse(e.payload);
    assert.equal(data.invoice.url, link(data.invoiceId), `${e.type} ${data.invoiceId}`);
    return `${e.type} ${data.invoiceId}`;
  });
  assert.deepEqual(
    seen.sort(),
    [
      `invoice.created ${paid.id}`,
      `invoice.completed ${paid.id}`,
      `invoice.created ${lapsed.id}`,
      `invoice.expired ${lapsed.id}`,
      `invoice.created ${dropped.id}`,
      `invoice.cancelled ${dropped.id}`,
    ].sort(),
  );
  assert.equal(done.url, link(paid.id));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storefrontRewrite } from '../../web/storefront/addressing.js';
import { build, owner } from '../helpers/build.js';
import { assertOk, createShop } from '../helpers/factories.js';

/** A shop's storefront at /s/{subdomain}/, at / of {subdomain}.{STOREFRONT_DOMAIN}, and at / of its custom domain. */

const config = { publicUrl: 'https://shopd.example.com', storefrontDomain: 'shops.example.com' };

function rewrite(url: string, host: string | undefined) {
  const raw = { url, headers: host === undefined ? {} : { host } } as never;
  return storefrontRewrite(config)(raw);
}

test('hosts choose the shop; service paths, the instance, IPs and localhost are never rewritten', () => {
  assert.equal(rewrite('/', 'demo.shops.example.com'), '/s/demo/');
  assert.equal(rewrite('/products/x?ref=a', 'Demo.Shops.Example.com:8443'), '/s/demo/products/x?ref=a');
  assert.equal(rewrite('/', 'keys.example.org'), '/s/~keys.example.org/');
  assert.equal(rewrite('/terms', 'keys.example.org.'), '/s/~keys.example.org/terms');
  for (const path of [
    '/v2/public/shops/1/main',
    '/self/shops',
    '/docs',
    '/openapi.json',
    '/health',
    '/assets/storefront/x.css',
    '/favicon.ico',
    '/uploads/abc.png',
  ])
    assert.equal(rewrite(path, 'demo.shops.example.com'), path, path);
  // Another shop's path on a shop's host stays inside that shop: one host never serves two shops.
  assert.equal(rewrite('/s/other/', 'demo.shops.example.com'), '/s/demo/s/other/');
  assert.equal(rewrite('/s/other/', 'keys.example.org'), '/s/~keys.example.org/s/other/');
  assert.equal(rewrite('/s/other/', 'shopd.example.com'), '/s/other/');
  for (const host of [
    'shopd.example.com',
    'shops.example.com',
    '127.0.0.1:3000',
    '[::1]:3000',
    'localhost:3000',
    undefined,
  ])
    assert.equal(rewrite('/', host), '/', String(host));
  assert.equal(rewrite('/', 'a.b.shops.example.com'), '/', 'not a subdomain: no shop');
  assert.equal(rewrite('/', 'bad_host!.com'), '/', 'a malformed Host is left alone');
});

test('the same shop answers at its path, its subdomain host and its custom domain, each linking from its own base', async (t) => {
  const app = await build(t, { PUBLIC_URL: 'http://shopd.test', STOREFRONT_DOMAIN: 'shops.test' });
  const api = await owner(app);
  const shop = await createShop(api, 'Address Shop');
  assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: 'keys.example.org' }));
  const byPath = await app.inject(`/s/${shop.subdomain}/`);
  const byHost = await app.inject({ url: '/', headers: { host: `${shop.subdomain}.shops.test` } });
  const byDomain = await app.inject({ url: '/', headers: { host: 'keys.example.org' } });
  for (const res of [byPath, byHost, byDomain]) {
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes('Address Shop'));
  }
  assert.ok(byPath.body.includes(`href="/s/${shop.subdomain}/faq"`));
  assert.ok(byHost.body.includes('href="/faq"') && !byHost.body.includes(`/s/${shop.subdomain}/`));
  assert.ok(byDomain.body.includes('href="/faq"'));
  // Cached separately: the host-addressed page never serves the path-addressed links.
  const again = await app.inject({ url: '/', headers: { host: `${shop.subdomain}.shops.test` } });
  assert.equal(again.body, byHost.body);

  const unknown = await app.inject({ url: '/', headers: { host: 'nobody.example.net' } });
  assert.equal(unknown.statusCode, 404);
  assert.match(unknown.body, /No shop lives at this address/);
  const other = await createShop(api, 'Other Shop');
  const crossed = await app.inject({ url: `/s/${other.subdomain}/`, headers: { host: 'keys.example.org' } });
  assert.equal(crossed.statusCode, 404, "a custom domain never serves another shop's pages");
  assert.ok(!crossed.body.includes('Other Shop'));
  // The API stays the API on a custom domain.
  const api404 = await app.inject({ url: `/v2/public/shops/${shop.id}/main`, headers: { host: 'keys.example.org' } });
  assert.equal(api404.statusCode, 200);
  assert.equal(api404.json().data.mainDetails.name, 'Address Shop');

  // Clearing the domain takes the shop off it at once.
  assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: null }));
  const gone = await app.inject({ url: '/', headers: { host: 'keys.example.org' } });
  assert.equal(gone.statusCode, 404);
});

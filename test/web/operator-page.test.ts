import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertOk, createShop } from '../helpers/factories.js';
import { icoImage } from '../helpers/multipart.js';

test("`/` of the operator's host is the operator's page: the admin, the API reference and the newest shops", async (t) => {
  const app = await build(t, { STOREFRONT_DOMAIN: 'shops.test' });
  const empty = await app.inject('/');
  assert.equal(empty.statusCode, 200);
  assert.match(empty.headers['content-type'] as string, /^text\/html/);
  assert.match(empty.headers['content-security-policy'] as string, /frame-ancestors 'self'/);
  assert.ok(empty.body.includes('href="/admin/"') && empty.body.includes('href="/docs"'));
  assert.ok(empty.body.includes('No shop yet'));

  const api = await owner(app);
  const shops = [];
  for (let i = 1; i <= 51; i++) shops.push(await createShop(api, `Shop <${i}>`));
  assertOk(await api.put(`/self/${shops[50]!.id}/settings/domain`, { domain: 'keys.example.org' }));
  assertOk(await api.put(`/self/${shops[49]!.id}/settings/domain`, { domain: 'unproven.example.org' }));
  // A custom domain is linked once its DNS record proved it points here (domain-verification.ts).
  await app.db.kysely
    .updateTable('shops')
    .set({ custom_domain_verified_at: Date.now() })
    .where('id', '=', shops[50]!.id)
    .execute();
  const page = await app.inject('/');
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes('>Shop &lt;51></a>'), 'names are escaped');
  assert.ok(page.body.includes('href="http://keys.example.org/"'), 'a custom domain is linked at its own host');
  assert.ok(
    page.body.includes(`href="http://${shops[49]!.subdomain}.shops.test/"`),
    'an unproven one at its subdomain',
  );
  assert.ok(!page.body.includes('>Shop &lt;1></a>'), 'only the newest 50 are listed');
  assert.ok(page.body.includes('The newest 50 of 51 shops.'));

  // A shop's host still gets its storefront at `/`.
  const storefront = await app.inject({ url: '/', headers: { host: `${shops[0]!.subdomain}.shops.test` } });
  assert.equal(storefront.statusCode, 200);
  assert.ok(storefront.body.includes('Shop &lt;1>') && !storefront.body.includes('href="/admin/"'));
});

test('without STOREFRONT_DOMAIN shops are linked under /s/ of the same host; ROOT_PAGE_SHOPS=false names none', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Listed Keys');
  const page = await app.inject('/');
  assert.ok(page.body.includes(`<a href="/s/${shop.subdomain}/">Listed Keys</a>`));

  const quiet = await build(t, { ROOT_PAGE_SHOPS: 'false' });
  await createShop(await owner(quiet), 'Hidden Keys');
  const hidden = await quiet.inject('/');
  assert.equal(hidden.statusCode, 200);
  assert.ok(hidden.body.includes('href="/admin/"'));
  assert.ok(!hidden.body.includes('Hidden Keys') && !hidden.body.includes('<h2>Shops</h2>'));
});

test('one icon: /favicon.ico on any host points at the served SVG, which every page without its own names', async (t) => {
  const app = await build(t, { STOREFRONT_DOMAIN: 'shops.test' });
  const api = await owner(app);
  const shop = await createShop(api, 'Icon Keys');
  for (const host of ['127.0.0.1', `${shop.subdomain}.shops.test`]) {
    const ico = await app.inject({ url: '/favicon.ico', headers: { host } });
    assert.equal(ico.statusCode, 301, host);
    const svg = await app.inject(ico.headers.location as string);
    assert.equal(svg.statusCode, 200);
    assert.equal(svg.headers['content-type'], 'image/svg+xml');
    assert.match(svg.body, /^<svg /);
  }
  const icon = /<link rel="icon" type="image\/svg\+xml" href="(\/assets\/storefront\/favicon\.[\w-]+\.svg)"/;
  const storefront = await app.inject(`/s/${shop.subdomain}/`);
  assert.equal(icon.exec(storefront.body)?.[1], (await app.inject('/favicon.ico')).headers.location);
  assert.match((await app.inject('/')).body, icon);

  // A shop's own icon replaces it.
  const own = assertOk(await api.upload(`/self/${shop.id}/customization/seo/favicon`, await icoImage(), 'icon.ico'));
  const page = await app.inject(`/s/${shop.subdomain}/`);
  assert.ok(page.body.includes(`<link rel="icon" href="${own.url}"/>`));
  assert.doesNotMatch(page.body, icon);
});

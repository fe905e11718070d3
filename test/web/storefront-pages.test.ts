import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertOk, createShop, sellingShop } from '../helpers/factories.js';
import { formOf, postForm } from '../helpers/web-forms.js';

/** The storefront's public pages as a buyer's browser gets them: HTML in the shop's design. */

test('the home page lists products with price, stock and sold count, escaped, in the shop design', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  assertOk(
    await api.put(`/self/${shopId}/settings/design`, {
      primaryColor: '#123456',
      centerProductTitle: true,
      disableShadows: true,
    }),
  );
  assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: '<script>alert(1)</script> & co',
      description: 'x',
      variants: [
        { title: 'One', priceDetails: { amount: 3 }, productType: 'service', asService: { text: 't', stock: null } },
      ],
    }),
  );
  const res = await app.inject(`/s/${shop.subdomain}/`);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  assert.ok(res.body.startsWith('<!doctype html>'));
  assert.ok(res.body.includes('Game Key'));
  assert.ok(res.body.includes('$9.99') || res.body.includes('$5.00'), 'a price in the shop currency');
  assert.ok(res.body.includes('--primary:#123456'));
  // The design's switches that style the whole page are classes on <html>.
  const htmlClasses = /<html[^>]*class="([^"]*)"/.exec(res.body)?.[1]?.split(' ') ?? [];
  assert.ok(htmlClasses.includes('centered') && htmlClasses.includes('flat'), `html classes: ${htmlClasses}`);
  assert.ok(!res.body.includes('<script>alert(1)</script>'), 'owner text is escaped');
  assert.ok(res.body.includes('&lt;script>alert(1)&lt;/script> &amp; co'));
  // A product without an image shows its initials on a hue of its own, hidden from screen readers.
  assert.match(res.body, /<div class="placeholder" style="--hue:\d+;" aria-hidden="true"><span>GK<\/span><\/div>/);
  assert.ok(res.headers.etag);
  const again = await app.inject({
    url: `/s/${shop.subdomain}/`,
    headers: { 'if-none-match': String(res.headers.etag) },
  });
  assert.equal(again.statusCode, 304);
});

test('an unknown shop and an unknown page are 404 pages', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const none = await app.inject('/s/no-such-shop/');
  assert.equal(none.statusCode, 404);
  assert.match(none.body, /No shop lives at this address/);
  const page = await app.inject(`/s/${shop.subdomain}/nothing/here`);
  assert.equal(page.statusCode, 404);
  assert.match(page.body, /Page not found/);
  assert.ok(page.body.includes(shop.name as string));
  const product = await app.inject(`/s/${shop.subdomain}/products/missing`);
  assert.equal(product.statusCode, 404);
});

test('a password-protected shop shows a prompt; the right password opens it until the password changes', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'open sesame' }));
  const base = `/s/${shop.subdomain}`;

  const prompt = await app.inject(`${base}/products/game-key`);
  assert.equal(prompt.statusCode, 401);
  assert.match(prompt.body, /This shop is private/);
  assert.ok(!prompt.body.includes('Game Key'), 'nothing of the shop shows before the password');
  assert.equal(prompt.headers['cache-control'], 'private, no-store');
  const form = formOf(prompt);

  const post = (password: string, extra: Record<string, string> = {}) =>
    postForm(app, `${base}/unlock`, form, { password, next: `${base}/products/game-key`, ...extra });
  const wrong = await post('nope');
  assert.equal(wrong.statusCode, 401);
  assert.match(wrong.body, /That password is not right/);

  const noCsrf = await postForm(app, `${base}/unlock`, form, { password: 'open sesame' }, { csrf: false });
  assert.equal(noCsrf.statusCode, 403);
  assert.ok(!noCsrf.cookies.some((c) => c.name.startsWith('shopd_unlock_')));

  const right = await post('open sesame');
  assert.equal(right.statusCode, 303);
  assert.equal(right.headers.location, `${base}/products/game-key`);
  const unlock = right.cookies.find((c) => c.name === `shopd_unlock_${shopId}`);
  assert.ok(unlock?.httpOnly);
  assert.ok(!unlock.value.includes('sesame'));
  const open = await app.inject({ url: `${base}/products/game-key`, cookies: { [unlock.name]: unlock.value } });
  assert.equal(open.statusCode, 200);
  assert.ok(open.body.includes('Game Key'));
  assert.match(String(open.headers['cache-control']), /^private/);

  // Another site as `next` is refused: back to the shop's home.
  for (const next of [
    '//evil.example/',
    '/\t/evil.example',
    '/\\evil.example',
    'https://evil.example/',
    '/s/other-shop/',
  ]) {
    const offsite = await post('open sesame', { next });
    assert.equal(offsite.headers.location, `${base}/`, JSON.stringify(next));
  }

  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'new password' }));
  const retired = await app.inject({ url: `${base}/products/game-key`, cookies: { [unlock.name]: unlock.value } });
  assert.equal(retired.statusCode, 401, 'a changed password retires the cookie');
});

test('an on-hold shop and a shop without payment methods show nothing buyable', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  const product = `/s/${shop.subdomain}/products/game-key`;
  const buyable = await app.inject(product);
  assert.match(buyable.body, /Buy now/);

  assertOk(await api.put(`/self/${shopId}/settings/status`, { onHold: true }));
  const held = await app.inject(product);
  assert.ok(!held.body.includes('Buy now'));
  assert.match(held.body, /not taking orders/);
  assertOk(await api.put(`/self/${shopId}/settings/status`, { onHold: false }));

  assertOk(await api.put(`/self/${shopId}/settings/payments/tipjar`, { enabled: false }));
  assertOk(await api.put(`/self/${shopId}/settings/payments/balance`, { enabled: false }));
  const unpayable = await app.inject(product);
  assert.ok(!unpayable.body.includes('Buy now'));
  assert.match(unpayable.body, /no payment method/);
  const home = await app.inject(`/s/${shop.subdomain}/`);
  assert.match(home.body, /cannot take payments yet/);
});

test('storefront pages are limited per client IP, whatever Authorization header a client sends', async (t) => {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '3', RATE_LIMIT_OWNER_MAX: '1000' });
  const api = await owner(app);
  const shop = await createShop(api);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await app.inject({
      url: `/s/${shop.subdomain}/faq`,
      headers: { authorization: `Bearer made-up-${i}` },
    });
    statuses.push(res.statusCode);
  }
  assert.deepEqual(statuses, [200, 200, 200, 429]);
});

test('made-up query parameters neither change a cached page nor add copies of it to the cache', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  const first = await app.inject(`/s/${shop.subdomain}/products/game-key`);
  const stored = app.pageCache.size.bytes;
  assert.ok(stored > 0);
  for (let i = 0; i < 5; i++) {
    const res = await app.inject(`/s/${shop.subdomain}/products/game-key?utm_source=${i}&x=${i}`);
    assert.equal(res.body, first.body);
  }
  assert.equal(app.pageCache.size.bytes, stored);
  // A parameter the page reads is a page of its own.
  const referred = await app.inject(`/s/${shop.subdomain}/products/game-key?ref=FRIEND`);
  assert.ok(referred.body.includes('FRIEND'));
  assert.ok(app.pageCache.size.bytes > stored);
});

test('a cached page costs no database read, and a change of the shop is seen at once', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  const home = `/s/${shop.subdomain}/`;
  assert.equal((await app.inject(home)).statusCode, 200);
  const statements: string[] = [];
  const stop = app.db.observeQueries((event) => statements.push(event.sql));
  const hit = await app.inject(home);
  stop();
  assert.equal(hit.statusCode, 200);
  assert.deepEqual(statements, [], 'neither the shop nor the page is read again');

  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'hush hush' }));
  assert.equal((await app.inject(home)).statusCode, 401, 'a new password closes the shop at once');
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: null }));
  assertOk(await api.put(`/self/${shopId}/settings/subdomain`, { newSubDomain: 'renamed-shop' }));
  assert.equal((await app.inject(home)).statusCode, 404, 'the old address is gone at once');
  assert.equal((await app.inject('/s/renamed-shop/')).statusCode, 200);
});

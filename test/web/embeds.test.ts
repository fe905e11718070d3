import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';

/**
 * The shop's embed pages (issue 37, item 3): the only pages another site may frame; the buying
 * flow stays under `/embed` and takes no cookie's word (no CSRF token needed, no customer session,
 * no password unlock); `/embed.js` is served on every host.
 */

async function setup(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: ['SERIAL-EMBED-0001', 'SERIAL-EMBED-0002'] });
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  return { app, api, ...shop, base: `/s/${subdomain}` };
}

const frameAncestors = (csp: unknown) => /frame-ancestors ([^;]+)/.exec(String(csp))?.[1];

test('embed pages may be framed by any site; every other page stays unframeable', async (t) => {
  const { app, base } = await setup(t);
  const embed = await app.inject({ method: 'GET', url: `${base}/embed/products/game-key` });
  assert.equal(embed.statusCode, 200);
  assert.equal(frameAncestors(embed.headers['content-security-policy']), '*');
  assert.equal(embed.headers['x-frame-options'], undefined);
  assert.match(embed.body, /class="embedded"/);
  assert.match(embed.body, new RegExp(`action="${base}/embed/checkout/start"`));
  assert.match(
    embed.body,
    /<link rel="canonical" href="[^"]*\/products\/game-key"/,
    'its canonical is the product page',
  );
  for (const url of [`${base}/`, `${base}/products/game-key`, `${base}/checkout?product=1`, `${base}/account`]) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(frameAncestors(res.headers['content-security-policy']), "'self'", url);
    assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN', url);
  }
  const script = await app.inject({ method: 'GET', url: '/embed.js' });
  assert.equal(script.statusCode, 200);
  assert.match(String(script.headers['content-type']), /^text\/javascript/);
  assert.match(script.body, /shopd:order/);
  // A shop's own host serves it too (a custom domain's or subdomain's pages may carry the button).
  const onShopHost = await app.inject({ method: 'GET', url: '/embed.js', headers: { host: 'keys.example.org' } });
  assert.equal(onShopHost.statusCode, 200);
  const robots = await app.inject({ method: 'GET', url: `${base}/robots.txt` });
  assert.match(robots.body, /Disallow: \/s\/[^/]+\/embed\//);
});

test('an order placed through the embed pages needs no cookie, stays framed, and says its status', async (t) => {
  const { app, api, shopId, productId, keysVariant, base } = await setup(t);
  // No cookie at all: a cross-site frame sends none.
  const start = await app.inject({
    method: 'POST',
    url: `${base}/embed/checkout/start`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      product: String(productId),
      variant: String(keysVariant),
      quantity: '1',
    }).toString(),
  });
  assert.equal(start.statusCode, 200, start.body);
  assert.equal(frameAncestors(start.headers['content-security-policy']), '*');
  assert.match(start.body, new RegExp(`action="${base}/embed/checkout"`));
  assert.doesNotMatch(start.body, /value="balance"/, 'no store balance: nobody is signed in here');

  const placed = await app.inject({
    method: 'POST',
    url: `${base}/embed/checkout`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      product: String(productId),
      variant: String(keysVariant),
      quantity: '1',
      email: 'framed@example.com',
      gateway: 'tipjar',
    }).toString(),
  });
  assert.equal(placed.statusCode, 303, placed.body);
  const location = String(placed.headers.location);
  assert.match(location, new RegExp(`^${base}/embed/invoices/[A-Za-z0-9_-]+$`));
  const invoiceId = location.split('/').pop()!;
  const page = await app.inject({ method: 'GET', url: location });
  assert.equal(frameAncestors(page.headers['content-security-policy']), '*');
  assert.match(page.body, new RegExp(`id="embed-order" data-status="pending" data-invoice="${invoiceId}"`));
  assert.match(page.body, new RegExp(`action="${base}/embed/invoices/${invoiceId}/cancel"`));

  // The same posts without `/embed` still need the form's CSRF token.
  const forged = await app.inject({
    method: 'POST',
    url: `${base}/checkout`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      product: String(productId),
      variant: String(keysVariant),
      email: 'x@example.com',
      gateway: 'tipjar',
    }).toString(),
  });
  assert.equal(forged.statusCode, 403);
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 1);
});

test("an embed page takes no cookie's word: a private shop is bought on its own site only", async (t) => {
  const { app, api, shopId, base } = await setup(t);
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'open sesame' }));
  const res = await app.inject({ method: 'GET', url: `${base}/embed/products/game-key` });
  assert.equal(res.statusCode, 403);
  assert.match(res.body, /This shop is private/);
});

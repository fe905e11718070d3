import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STOREFRONT_GUESSES_PER_CLIENT, STOREFRONT_GUESSES_PER_SHOP } from '../../src/http/auth-failures.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop, sellingShop } from '../helpers/factories.js';
import { openForm, postForm } from '../helpers/web-forms.js';

/**
 * Issue 36, L5: the storefront password had no failure limit (200 guesses went through, each an
 * scrypt) and a 4-character minimum. Clients are told apart by X-Forwarded-For (TRUST_PROXY).
 */

const PASSWORD = 'open sesame';

async function lockedShop(t: import('node:test').TestContext) {
  const app = await build(t, { TRUST_PROXY: 'true' });
  const api = await owner(app);
  const shop = await createShop(api, 'Locked Shop');
  assertOk(await api.put(`/self/${shop.id}/settings/password`, { password: PASSWORD }));
  const main = (key: string, client: string) =>
    app.inject({
      method: 'GET',
      url: `/v2/public/shops/${shop.id}/main?key=${encodeURIComponent(key)}`,
      headers: { 'x-forwarded-for': client },
    });
  return { app, api, shop, main };
}

test('wrong storefront passwords are limited per client: past the budget even the right one is a 429', async (t) => {
  const { main } = await lockedShop(t);
  for (let i = 0; i < STOREFRONT_GUESSES_PER_CLIENT; i++)
    assert.equal((await main(`wrong ${i}`, '198.51.100.1')).statusCode, 403, `guess ${i} is a 403`);
  const refused = await main(PASSWORD, '198.51.100.1');
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.json().code, 'rate_limited');
  assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After');
  // Another address of the same IPv6 /64 is the same client; another client is not held back.
  for (let i = 0; i < STOREFRONT_GUESSES_PER_CLIENT; i++)
    assert.equal((await main(`wrong ${i}`, `2001:db8:7:7::${i + 1}`)).statusCode, 403);
  assert.equal((await main(PASSWORD, '2001:db8:7:7::ff')).statusCode, 429);
  assert.equal((await main(PASSWORD, '198.51.100.2')).statusCode, 200);
});

test('guesses spread over many clients meet the shop budget', async (t) => {
  const { main } = await lockedShop(t);
  for (let i = 0; i < STOREFRONT_GUESSES_PER_SHOP; i++) {
    const client = `203.0.113.${Math.floor(i / STOREFRONT_GUESSES_PER_CLIENT)}`;
    assert.equal((await main(`wrong ${i}`, client)).statusCode, 403);
  }
  assert.equal((await main(PASSWORD, '203.0.113.150')).statusCode, 429, 'a new visitor waits out the window');
});

test('the storefront form and the checkout key count as guesses too', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  assertOk(await api.put(`/self/${shop.shopId}/settings/password`, { password: PASSWORD }));
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  const base = `/s/${subdomain}`;
  const { form } = await openForm(app, `${base}/`);
  for (let i = 0; i < STOREFRONT_GUESSES_PER_CLIENT; i++)
    assert.equal((await postForm(app, `${base}/unlock`, form, { password: `wrong ${i}` })).statusCode, 401);
  assert.equal((await postForm(app, `${base}/unlock`, form, { password: PASSWORD })).statusCode, 429);
  // The same client's budget holds on the JSON checkout's `key`.
  const checkout = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shop.shopId}/invoices`,
    payload: {
      key: PASSWORD,
      customerEmail: 'buyer@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
    },
  });
  assertError({ status: checkout.statusCode, body: checkout.json() }, 429, 'rate_limited');
});

test('a new storefront password needs 8 characters', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  assertError(await api.put(`/self/${shop.id}/settings/password`, { password: 'seven77' }), 400, 'validation_error');
  assert.equal(assertOk(await api.get(`/self/${shop.id}/settings`)).passwordProtected, false, 'nothing was set');
  assert.equal(
    assertOk(await api.put(`/self/${shop.id}/settings/password`, { password: 'eight888' })).passwordProtected,
    true,
  );
});

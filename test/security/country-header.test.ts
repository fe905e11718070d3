import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 36, L6: the country header (COUNTRY_HEADER, cf-ipcountry) was believed from any client,
 * so a shop's country blacklist was a header away. Now it is read only from a peer TRUST_PROXY
 * names (the proxy that sets it).
 */
async function setup(t: Parameters<typeof build>[0], env: Record<string, string>) {
  const app = await build(t, { ...env, RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api);
  assertOk(await api.post(`/self/${shop.shopId}/blacklist`, { type: 'country', data: 'DE' }));
  const checkout = (country: string, remoteAddress = '127.0.0.1') =>
    app
      .inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.shopId}/invoices`,
        remoteAddress,
        headers: { 'cf-ipcountry': country },
        payload: {
          customerEmail: 'buyer@example.com',
          gateway: 'tipjar',
          parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
        },
      })
      .then((r) => ({ status: r.statusCode, body: r.json(), headers: r.headers }));
  const countryOf = async (id: string) => assertOk(await api.get(`/self/${shop.shopId}/invoices/${id}`)).country;
  return { checkout, countryOf };
}

test('without TRUST_PROXY the country header is ignored: neither blocked nor recorded', async (t) => {
  const { checkout, countryOf } = await setup(t, {});
  const order = assertOk(await checkout('DE'));
  assert.equal(await countryOf(order.id), null);
});

test('from a trusted proxy the country header is believed', async (t) => {
  const { checkout, countryOf } = await setup(t, { TRUST_PROXY: '127.0.0.1' });
  assertError(await checkout('de'), 422, 'unprocessable');
  const order = assertOk(await checkout('fr'));
  assert.equal(await countryOf(order.id), 'FR');
});

test('with TRUST_PROXY naming ranges, only peers in them are believed', async (t) => {
  const { checkout, countryOf } = await setup(t, { TRUST_PROXY: '10.0.0.0/8,2001:db8::/32' });
  assertError(await checkout('DE', '10.1.2.3'), 422, 'unprocessable');
  assertError(await checkout('DE', '::ffff:10.9.9.9'), 422, 'unprocessable');
  assertError(await checkout('DE', '2001:db8:5::1'), 422, 'unprocessable');
  const direct = assertOk(await checkout('DE', '203.0.113.5'));
  assert.equal(await countryOf(direct.id), null, 'a client connecting directly chooses no country');
  assertOk(await checkout('DE', '2001:db9::1'));
});

test('a hop count trusts the nearest peer as a proxy', async (t) => {
  const { checkout } = await setup(t, { TRUST_PROXY: '1' });
  assertError(await checkout('DE', '203.0.113.5'), 422, 'unprocessable');
});

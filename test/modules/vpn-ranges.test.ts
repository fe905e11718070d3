import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { ConfigError } from '../../src/config.js';
import { build, type Client, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

const RANGES = `# VPN exits, one address or CIDR range per line
203.0.113.0/24
2001:db8::/32   # a documentation range

198.51.100.7
`;

/** A selling shop on an app with (or without) a VPN ranges file, and a checkout from a chosen IP. */
async function setup(t: TestContext, ranges?: string) {
  const env: Record<string, string> = {};
  if (ranges !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'shopd-vpn-'));
    onEnd(t, () => rmSync(dir, { recursive: true, force: true }));
    env.VPN_RANGES_FILE = join(dir, 'vpn.txt');
    writeFileSync(env.VPN_RANGES_FILE, ranges);
  }
  const app = await build(t, env);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const checkout = (ip: string, over: object = {}) =>
    app
      .inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.shopId}/invoices`,
        remoteAddress: ip,
        payload: {
          customerEmail: 'buyer@example.com',
          gateway: 'tipjar',
          parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
          ...over,
        },
      })
      .then((r) => ({ status: r.statusCode, body: r.json() }));
  const invoiceCount = async () => assertOk(await api.get(`/self/${shop.shopId}/invoices`)).totalCount;
  return { app, api, ...shop, checkout, invoiceCount };
}

const tipjar = (api: Client, shopId: number, blockVpn: boolean) =>
  api.put(`/self/${shopId}/settings/payments/tipjar`, { gatewayRules: { blockVpn } });

test('with VPN ranges, a gateway that blocks VPNs refuses buyers in them with a 422 naming the gateway', async (t) => {
  const { api, shopId, checkout, invoiceCount } = await setup(t, RANGES);
  assertOk(await checkout('203.0.113.9'));
  assert.equal(assertOk(await tipjar(api, shopId, true)).gatewayRules.blockVpn, true);
  for (const ip of ['203.0.113.9', '::ffff:203.0.113.200', '2001:db8::5', '198.51.100.7']) {
    const refused = await checkout(ip);
    assertError(refused, 422, 'unprocessable');
    assert.deepEqual(refused.body.errors, ['gateway: tipjar refuses VPN and proxy addresses'], ip);
  }
  const before = await invoiceCount();
  for (const ip of ['192.0.2.1', '198.51.100.8', '2001:db9::1']) assertOk(await checkout(ip));
  assert.equal(await invoiceCount(), before + 3);
  // Another gateway of the shop is not concerned.
  assertOk(await tipjar(api, shopId, false));
  assertOk(await checkout('203.0.113.9'));
});

test("a variant's blockVpn rule refuses VPN buyers through that gateway for that product only", async (t) => {
  const { api, shopId, productId, keysVariant, serviceVariant, checkout } = await setup(t, RANGES);
  const url = `/self/${shopId}/v2/products/${productId}`;
  const product = assertOk(await api.get(url));
  const variants = product.variants.map((v: any) => ({
    id: v.id,
    title: v.title,
    priceDetails: { amount: v.priceDetails.amount },
    productType: v.productType,
    ...(v.productType === 'service'
      ? { asService: { text: v.asService.text }, gateways: [{ gateway: 'tipjar', rules: { blockVpn: true } }] }
      : {}),
  }));
  const saved = assertOk(await api.put(url, { title: product.title, description: product.description, variants }));
  assert.deepEqual(saved.variants[1].gateways, [{ gateway: 'tipjar', rules: { blockVpn: true }, price: null }]);
  const refused = await checkout('203.0.113.9', {
    parts: [
      { productId, productVariantId: keysVariant, quantity: 1 },
      { productId, productVariantId: serviceVariant, quantity: 1 },
    ],
  });
  assertError(refused, 422, 'unprocessable');
  assert.deepEqual(refused.body.errors, [
    'parts[1].productVariantId: tipjar refuses VPN and proxy addresses for this product',
  ]);
  assertOk(await checkout('203.0.113.9', { parts: [{ productId, productVariantId: keysVariant, quantity: 1 }] }));
  assertOk(await checkout('192.0.2.1'));
});

test('without VPN ranges blockVpn cannot be turned on (422); rules stored before are kept, not enforced, and counted at start', async (t) => {
  const config = await freshConfig(t);
  const warnings: { msg: string; gatewaySettings?: number; variants?: number }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) warnings.push(JSON.parse(line));
      callback();
    },
  });
  const app = await buildApp({ config, logger: { level: 'warn', stream } });
  onEnd(t, () => app.close());
  assert.equal(warnings.length, 0, 'nothing to say on a new database');
  const api = await owner(app);
  const { shopId, productId, serviceVariant } = await sellingShop(api);

  const shopRule = await tipjar(api, shopId, true);
  assertError(shopRule, 422, 'unprocessable');
  assert.deepEqual(shopRule.body.errors, [
    'gatewayRules.blockVpn: cannot be true: the server has no VPN ranges configured (VPN_RANGES_FILE)',
  ]);
  assert.equal(assertOk(await api.get(`/self/${shopId}/settings`)).payments.tipjar.gatewayRules.blockVpn, false);
  const variantRule = await api.post(`/self/${shopId}/v2/products`, {
    title: 'Other',
    description: 'd',
    variants: [
      {
        title: 'V',
        priceDetails: { amount: 1 },
        productType: 'serials',
        gateways: [{ gateway: 'balance' }, { gateway: 'tipjar', rules: { blockVpn: true } }],
      },
    ],
  });
  assertError(variantRule, 422, 'unprocessable');
  assert.deepEqual(variantRule.body.errors, [
    'variants[0].gateways[1].rules.blockVpn: cannot be true: the server has no VPN ranges configured (VPN_RANGES_FILE)',
  ]);
  assert.equal(assertOk(await api.get(`/self/${shopId}/v2/products`)).totalCount, 1);
  assertOk(await tipjar(api, shopId, false));

  // Rules an earlier version stored (when the switch did nothing).
  const db = app.db.kysely;
  await db
    .updateTable('payment_settings')
    .set({ block_vpn: 1 })
    .where('shop_id', '=', shopId)
    .where('provider', '=', 'tipjar')
    .execute();
  await db
    .updateTable('product_variants')
    .set({ gateways: JSON.stringify([{ gateway: 'tipjar', rules: { blockVpn: true }, price: null }]) })
    .where('id', '=', serviceVariant)
    .execute();
  const again = await buildApp({ config, logger: { level: 'warn', stream } });
  onEnd(t, () => again.close());
  const warning = warnings.find((w) => /VPN_RANGES_FILE is not set/.test(w.msg));
  assert.ok(warning, JSON.stringify(warnings));
  assert.deepEqual([warning.gatewaySettings, warning.variants], [1, 1]);

  // Kept (a product read and written back stays writable), not enforced: nothing to check against.
  assertOk(await tipjar(api, shopId, true));
  const product = assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`));
  const variants = product.variants.map((v: any) => ({
    id: v.id,
    title: v.title,
    priceDetails: { amount: v.priceDetails.amount },
    productType: v.productType,
    gateways: v.gateways.map((g: any) => ({ gateway: g.gateway, rules: g.rules })),
    ...(v.asService ? { asService: { text: v.asService.text } } : {}),
  }));
  assertOk(
    await api.put(`/self/${shopId}/v2/products/${productId}`, {
      title: product.title,
      description: product.description,
      variants,
    }),
  );
  const bought = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    remoteAddress: '203.0.113.9',
    payload: {
      customerEmail: 'b@example.com',
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: serviceVariant, quantity: 1 }],
    },
  });
  assert.equal(bought.statusCode, 200, bought.body);
});

test('a VPN ranges file that cannot be read or has a bad line stops the start, naming the file and the line', async (t) => {
  const config = await freshConfig(t);
  const file = join(config.dataDir, 'vpn.txt');
  const start = () => buildApp({ config: { ...config, vpnRangesFile: file }, logger: false });
  await assert.rejects(
    start(),
    (err: Error) => err instanceof ConfigError && err.message.includes(`cannot read ${file}`),
  );
  writeFileSync(file, '# ranges\n203.0.113.0/24\n10.0.0.1/8\nnot-an-ip\n2001:db8::/32\n');
  await assert.rejects(start(), (err: Error) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, new RegExp(`^VPN_RANGES_FILE: ${file} has lines that are not`));
    assert.match(err.message, /line 3: "10\.0\.0\.1\/8" has bits set past the \/8 prefix/);
    assert.match(err.message, /line 4: "not-an-ip" must be an IPv4 or IPv6 address or CIDR range/);
    return true;
  });
  writeFileSync(file, '# nothing but comments\n\n');
  await assert.rejects(
    start(),
    (err: Error) => err instanceof ConfigError && /lists no address or range/.test(err.message),
  );
});

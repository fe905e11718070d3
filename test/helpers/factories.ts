import assert from 'node:assert/strict';
import type { Client } from './build.js';

/**
 * The protection a test shop gets unless its test is about protection: no client limits, no
 * mail budgets, and stock held for the whole invoice lifetime. Tests of other things
 * place many orders, tickets and mails from one client (every injected request comes from
 * 127.0.0.1), which the safe defaults (src/modules/protection) would refuse or budget. The tests
 * of those defaults create their shops with `{ protection: 'defaults' }`. No proof-of-work
 * challenge either: its tests (test/modules/challenge.test.ts) turn it on.
 */
export const RELAXED_PROTECTION = {
  holdMinutesHosted: 10_080,
  unitsPerClient: 0,
  pendingPerClient: 0,
  hostedCheckoutsPerHour: 0,
  mailPerRecipientHour: 0,
  mailPerClientHour: 0,
  mailPerShopDay: 0,
  challenge: 'off',
} as const;

/** Creates a shop through the API, with RELAXED_PROTECTION unless asked for the defaults, and returns it. */
export async function createShop(
  api: Client,
  name = 'Test Shop',
  opts: { protection?: 'relaxed' | 'defaults' } = {},
): Promise<{ id: number; subdomain: string; [k: string]: unknown }> {
  const res = await api.post('/self/shops', { name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  if (opts.protection !== 'defaults')
    assertOk(await api.put(`/self/${res.body.data.id}/settings/protection`, RELAXED_PROTECTION));
  return res.body.data;
}

/** Asserts the contract's error envelope with this status and code. */
export function assertError(res: { status: number; body: any }, status: number, code: string): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.data, null);
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, 'errors must name at least one problem');
}

export function assertOk(res: { status: number; body: any }): any {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.message, 'OK');
  assert.deepEqual(res.body.errors, []);
  return res.body.data;
}

/** A shop that can sell: tipjar and balance enabled, one product with a serials and a service variant. */
export async function sellingShop(
  api: import('./build.js').Client,
  opts: { serials?: string[]; serviceStock?: number | null } = {},
) {
  const shop = await createShop(api, 'Selling Shop');
  assertOk(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  assertOk(await api.put(`/self/${shop.id}/settings/payments/balance`, { enabled: true }));
  const product = assertOk(
    await api.post(`/self/${shop.id}/v2/products`, {
      title: 'Game Key',
      description: 'A key',
      variants: [
        {
          title: 'Key',
          priceDetails: { amount: 9.99 },
          productType: 'serials',
          asSerials: { serials: opts.serials ?? ['K1', 'K2', 'K3', 'K4', 'K5'] },
        },
        {
          title: 'Support',
          priceDetails: { amount: 5 },
          productType: 'service',
          asService: { text: 'Support text', stock: opts.serviceStock === undefined ? 10 : opts.serviceStock },
        },
      ],
    }),
  );
  const [keys, service] = product.variants;
  return {
    shopId: shop.id as number,
    productId: product.id as number,
    keysVariant: keys.id as number,
    serviceVariant: service.id as number,
  };
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_PROTECTION } from '../../src/modules/protection/index.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

test('a new shop has the safe defaults, shown in GET settings', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Protected', { protection: 'defaults' });
  const settings = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.deepEqual(settings.protection, DEFAULT_PROTECTION);
  assert.equal(settings.protection.holdMinutesHosted, 15);
  assert.equal(settings.protection.unitsPerClient, 10);
  assert.equal(settings.protection.pendingPerClient, 3);
});

test('PUT settings/protection changes the given settings and keeps the others', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Protected', { protection: 'defaults' });
  const first = assertOk(
    await api.put(`/self/${shop.id}/settings/protection`, { unitsPerClient: 2, disputeBlacklist: true }),
  );
  assert.deepEqual(first, { ...DEFAULT_PROTECTION, unitsPerClient: 2, disputeBlacklist: true });
  const second = assertOk(
    await api.put(`/self/${shop.id}/settings/protection`, { disputeAutoSubmit: true, mailPerShopDay: 0 }),
  );
  assert.deepEqual(second, { ...first, disputeAutoSubmit: true, mailPerShopDay: 0 });
  assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)).protection, second);
});

test('bad values are a 400 that changes nothing; another account gets 404', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const other = await owner(app);
  const shop = await createShop(api, 'Protected', { protection: 'defaults' });
  const url = `/self/${shop.id}/settings/protection`;
  assertOk(await api.put(url, { pendingPerClient: 7 }));
  for (const body of [
    {},
    { holdMinutesHosted: 1 },
    { unitsPerClient: -1 },
    { mailPerShopDay: -5 },
    { holdMinutesHosted: 20_000 },
    { disputeBlacklist: 'yes' },
    { pendingPerClient: 2, mailPerClientHour: 1.5 },
  ]) {
    assertError(await api.put(url, body), 400, 'validation_error');
  }
  assertError(await other.put(url, { pendingPerClient: 1 }), 404, 'not_found');
  assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)).protection, {
    ...DEFAULT_PROTECTION,
    pendingPerClient: 7,
  });
});

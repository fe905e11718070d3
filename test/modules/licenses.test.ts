import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createLocalJWKSet, decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import {
  generateLicenseKeys,
  issueLicenses,
  licensesOfInvoice,
  validateKeyPattern,
} from '../../src/modules/licenses/index.js';
import { listSealedSecrets, rotateSecrets } from '../../src/modules/secrets/service.js';
import { secretBoxFromKey } from '../../src/security/secret-box.js';
import { build, type Client, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { customerSession } from '../helpers/customer-session.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/**
 * Issue 35, licences: the public activate / validate / deactivate calls, exact activation limits
 * under concurrency, statuses and expiry, per-shop keys, the owner's and the buyer's routes,
 * revocation by refund, the webhooks, and the signed tokens with their JWKS and key rotation.
 * Licences are issued with `issueLicenses` in the transaction of a real completed order, as
 * products' fulfilment does.
 */

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

type Shop = Awaited<ReturnType<typeof sellingShop>>;

interface Terms {
  activationLimit?: number | null;
  expiresAt?: number | null;
  email?: string;
}

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const clock = new TestClock();
  const app = await build(t, env, { clock });
  const api = await owner(app);
  const shop = await sellingShop(api);
  return { app, api, clock, shop, ...helpers(app, api, clock) };
}

function helpers(app: FastifyInstance, api: Client, clock: TestClock) {
  /** A completed tip-jar order of the shop's service variant, and a licence for each key issued to it. */
  const sell = async (shop: Shop, keys: string[], terms: Terms = {}) => {
    const email = terms.email ?? 'buyer@example.com';
    const placed = assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
      }),
    );
    const done = assertOk(await api.post(`/self/${shop.shopId}/invoices/${placed.id}/process`));
    await app.db.kysely.transaction().execute((trx) =>
      issueLicenses(
        trx,
        shop.shopId,
        {
          invoiceId: placed.id,
          productId: shop.productId,
          variantId: shop.serviceVariant,
          customerId: done.customerId,
          email,
          keys,
          activationLimit: terms.activationLimit === undefined ? 3 : terms.activationLimit,
          expiresAt: terms.expiresAt ?? null,
        },
        clock.now(),
      ),
    );
    return { invoiceId: placed.id as string, customerId: done.customerId as number };
  };
  /** A public licence call, answered as status and body. */
  const call = async (shopId: number | string, action: string, body: object, remoteAddress?: string) => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/licenses/${action}`,
      payload: body,
      ...(remoteAddress ? { remoteAddress } : {}),
    });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };
  const jwks = async (shopId: number) => {
    const res = await app.inject({ url: `/v2/public/shops/${shopId}/licenses/jwks` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { keys: Record<string, string>[] };
  };
  const issuer = (shopId: number) => `${app.config.publicUrl}/v2/public/shops/${shopId}`;
  /** Verifies a token as a program would, at the test clock's time. */
  const verify = async (shopId: number, token: string, keys?: { keys: Record<string, string>[] }) => {
    const set = createLocalJWKSet((keys ?? (await jwks(shopId))) as never);
    const { payload } = await jwtVerify(token, set, {
      issuer: issuer(shopId),
      algorithms: ['EdDSA'],
      currentDate: new Date(clock.now()),
    });
    return payload as JWTPayload & Record<string, unknown>;
  };
  /** The webhook events of a type the shop recorded, oldest first. */
  const events = async (shopId: number, type: string) =>
    (
      await app.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('shop_id', '=', shopId)
        .where('type', '=', type)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => JSON.parse(e.payload));
  const licenseIdOf = async (shopId: number, key: string) =>
    assertOk(await api.get(`/self/${shopId}/licenses?searchString=${encodeURIComponent(key)}`)).items[0].id as number;
  return { sell, call, jwks, issuer, verify, events, licenseIdOf };
}

test('generated keys follow the pattern with CSPRNG symbols; patterns are checked', () => {
  const keys = generateLicenseKeys(null, 200);
  assert.equal(new Set(keys).size, 200);
  for (const key of keys) assert.match(key, /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  const custom = generateLicenseKeys('APP-XXXX-xx-XXXX', 3);
  for (const key of custom) assert.match(key, /^APP-[A-Z0-9]{4}-xx-[A-Z0-9]{4}$/);
  // Every symbol turns up (16,000 draws: missing one would be a broken alphabet, not chance).
  const symbols = new Set(generateLicenseKeys(null, 1000).join('').replaceAll('-', ''));
  assert.equal(symbols.size, 36);
  assert.equal(validateKeyPattern('XXXX-XXXX'), null);
  assert.match(validateKeyPattern('XXXX-XXX') ?? '', /at least 8 X/);
  assert.match(validateKeyPattern(`${'X'.repeat(8)}${'-'.repeat(93)}`) ?? '', /at most 100/);
  assert.match(validateKeyPattern('XXXX XXXX') ?? '', /spaces/);
  assert.throws(() => generateLicenseKeys('XX', 1), /at least 8 X/);
});

test('activate, validate and deactivate: the lifecycle of a licence, its token and its webhooks', async (t) => {
  const { app, shop, sell, call, verify, events, jwks, issuer } = await setup(t);
  const { shopId, productId } = shop;
  const key = 'LIFE-CYCL-EKEY-0001';
  const { invoiceId } = await sell(shop, [key], { activationLimit: 2 });

  const fresh = assertOk(await call(shopId, 'validate', { licenseKey: key }));
  assert.equal(fresh.valid, true);
  assert.deepEqual(fresh.license, {
    status: 'inactive',
    activationLimit: 2,
    activationUsage: 0,
    expiresAt: null,
    productId,
  });
  assert.equal(fresh.instance, null);
  const freshClaims = await verify(shopId, fresh.token);
  assert.equal(freshClaims.sub, key);
  assert.equal(freshClaims.status, 'inactive');
  assert.equal(freshClaims.instanceId, undefined);

  const first = assertOk(await call(shopId, 'activate', { licenseKey: ` ${key} `, instanceName: ' Office laptop ' }));
  assert.equal(first.activated, true);
  assert.match(first.instanceId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(first.license, {
    status: 'active',
    activationLimit: 2,
    activationUsage: 1,
    expiresAt: null,
    productId,
  });
  const claims = await verify(shopId, first.token);
  assert.equal(claims.iss, issuer(shopId));
  assert.equal(claims.sub, key);
  assert.equal(claims.productId, productId);
  assert.equal(claims.instanceId, first.instanceId);
  assert.equal(claims.status, 'active');
  assert.equal(claims.licenseExpiresAt, null);
  assert.equal(claims.exp! - claims.iat!, app.config.licenses.tokenHours * 3600);
  const header = decodeProtectedHeader(first.token);
  assert.equal(header.alg, 'EdDSA');
  assert.equal(header.kid, (await jwks(shopId)).keys[0]!.kid);

  const checked = assertOk(await call(shopId, 'validate', { licenseKey: key, instanceId: first.instanceId }));
  assert.equal(checked.valid, true);
  assert.equal(checked.instance.name, 'Office laptop');
  assert.equal(checked.instance.deactivatedAt, null);
  assert.equal((await verify(shopId, checked.token)).instanceId, first.instanceId);

  // The subdomain addresses the shop as well as the id.
  const { subdomain } = await app.db.kysely
    .selectFrom('shops')
    .select('subdomain')
    .where('id', '=', shopId)
    .executeTakeFirstOrThrow();
  const second = assertOk(await call(subdomain, 'activate', { licenseKey: key, instanceName: 'Desktop' }));
  assert.equal(second.license.activationUsage, 2);
  const over = await call(shopId, 'activate', { licenseKey: key, instanceName: 'Third' });
  assertError(over, 422, 'unprocessable');
  assert.deepEqual(over.body.errors, ['licenseKey: has reached its activation limit of 2']);

  assert.deepEqual(assertOk(await call(shopId, 'deactivate', { licenseKey: key, instanceId: first.instanceId })), {
    deactivated: true,
  });
  assert.deepEqual(assertOk(await call(shopId, 'deactivate', { licenseKey: key, instanceId: first.instanceId })), {
    deactivated: false,
  });
  const gone = assertOk(await call(shopId, 'validate', { licenseKey: key, instanceId: first.instanceId }));
  assert.equal(gone.valid, false, 'a deactivated instance is not valid');
  assert.equal(gone.token, null);
  assert.ok(gone.instance.deactivatedAt);
  assert.equal(gone.license.activationUsage, 1);
  const stranger = '00000000-0000-4000-8000-000000000000';
  const unknownInstance = assertOk(await call(shopId, 'validate', { licenseKey: key, instanceId: stranger }));
  assert.deepEqual([unknownInstance.valid, unknownInstance.instance, unknownInstance.token], [false, null, null]);
  assertOk(await call(shopId, 'activate', { licenseKey: key, instanceName: 'Third' }));

  // An unknown key is a 404 for every call; an instance not of the licence too.
  for (const [action, body] of [
    ['validate', { licenseKey: 'NO-SUCH-KEY' }],
    ['activate', { licenseKey: 'NO-SUCH-KEY', instanceName: 'x' }],
    ['deactivate', { licenseKey: 'NO-SUCH-KEY', instanceId: stranger }],
    ['deactivate', { licenseKey: key, instanceId: stranger }],
  ] as const)
    assertError(await call(shopId, action, body), 404, 'not_found');
  assertError(await call(shopId, 'activate', { licenseKey: '   ', instanceName: 'x' }), 400, 'validation_error');
  assertError(await call(shopId, 'validate', { licenseKey: key, instanceId: 'nope' }), 400, 'validation_error');

  const activated = await events(shopId, 'license.activated');
  assert.equal(activated.length, 3);
  assert.deepEqual(
    activated.find((e) => e.instanceId === first.instanceId),
    {
      licenseId: activated[0].licenseId,
      licenseKey: key,
      productId,
      invoiceId,
      instanceId: first.instanceId,
      instanceName: 'Office laptop',
      activationUsage: 1,
      activationLimit: 2,
    },
  );
  const deactivated = await events(shopId, 'license.deactivated');
  assert.deepEqual(
    deactivated.map((e) => [e.instanceId, e.by, e.activationUsage]),
    [[first.instanceId, 'program', 1]],
  );
  assert.deepEqual(await licensesOfInvoice(app.db.kysely, shopId, invoiceId), [
    {
      id: activated[0].licenseId,
      licenseKey: key,
      status: 'active',
      activationLimit: 2,
      activationUsage: 2,
      expiresAt: null,
      productId,
    },
  ]);
});

test('20 activations at once with a limit of 3: exactly 3 succeed; 10 deactivations of one instance free it once', async (t) => {
  const { app, shop, sell, call, licenseIdOf } = await setup(t);
  const key = 'RACE-RACE-RACE-RACE';
  await sell(shop, [key], { activationLimit: 3 });
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => call(shop.shopId, 'activate', { licenseKey: key, instanceName: `m${i}` })),
  );
  const won = answers.filter((a) => a.status === 200);
  assert.equal(won.length, 3, answers.map((a) => a.status).join(','));
  for (const lost of answers.filter((a) => a.status !== 200)) assertError(lost, 422, 'unprocessable');
  const id = await licenseIdOf(shop.shopId, key);
  const rows = await app.db.kysely.selectFrom('license_activations').selectAll().where('license_id', '=', id).execute();
  assert.equal(rows.length, 3);
  const [license] = await app.db.kysely.selectFrom('licenses').selectAll().where('id', '=', id).execute();
  assert.equal(license!.activation_usage, 3);

  const instanceId = won[0]!.body.data.instanceId;
  const freed = await Promise.all(
    Array.from({ length: 10 }, () => call(shop.shopId, 'deactivate', { licenseKey: key, instanceId })),
  );
  assert.deepEqual(
    freed.map((f) => assertOk(f).deactivated).filter(Boolean),
    [true],
    'one call frees it, the others find it free',
  );
  const after = await app.db.kysely.selectFrom('licenses').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  assert.equal(after.activation_usage, 2);
  // The freed seat is taken by exactly one of the next racers.
  const again = await Promise.all(
    Array.from({ length: 5 }, (_, i) => call(shop.shopId, 'activate', { licenseKey: key, instanceName: `n${i}` })),
  );
  assert.equal(again.filter((a) => a.status === 200).length, 1);
});

test('statuses: expiry by the clock, disabled, enabled, extended and revoked by the owner', async (t) => {
  const { api, clock, shop, sell, call, verify, licenseIdOf, events } = await setup(t);
  const { shopId } = shop;
  const key = 'EXPI-RING-KEYS-0001';
  const end = clock.now() + DAY;
  await sell(shop, [key], { activationLimit: null, expiresAt: end });
  const id = await licenseIdOf(shopId, key);
  const owned = (path = '') => api.post(`/self/${shopId}/licenses/${id}${path}`);

  const live = assertOk(await call(shopId, 'activate', { licenseKey: key, instanceName: 'Laptop' }));
  assert.equal(live.license.activationLimit, null, 'unlimited');
  assert.equal(live.license.expiresAt, new Date(end).toISOString());
  const claims = await verify(shopId, live.token);
  assert.equal(claims.exp, Math.floor(end / 1000), 'no token outlives its licence');
  assert.equal(claims.licenseExpiresAt, new Date(end).toISOString());

  clock.advance(DAY);
  const expired = assertOk(await call(shopId, 'validate', { licenseKey: key, instanceId: live.instanceId }));
  assert.deepEqual([expired.valid, expired.license.status, expired.token], [false, 'expired', null]);
  const refused = await call(shopId, 'activate', { licenseKey: key, instanceName: 'Late' });
  assertError(refused, 422, 'unprocessable');
  assert.deepEqual(refused.body.errors, ['licenseKey: is expired']);
  const expiredList = assertOk(await api.get(`/self/${shopId}/licenses?status=expired`));
  assert.deepEqual(
    expiredList.items.map((l: { id: number }) => l.id),
    [id],
  );

  // Extended past now: usable again; addDays counts from now once the end has passed.
  const extended = assertOk(await api.post(`/self/${shopId}/licenses/${id}/extend`, { addDays: 10 }));
  assert.equal(extended.expiresAt, new Date(clock.now() + 10 * DAY).toISOString());
  assert.equal(extended.status, 'active');
  const moved = assertOk(await api.post(`/self/${shopId}/licenses/${id}/extend`, { addDays: 1 }));
  assert.equal(moved.expiresAt, new Date(clock.now() + 11 * DAY).toISOString());
  assert.equal(
    assertOk(await api.post(`/self/${shopId}/licenses/${id}/extend`, { expiresAt: null })).expiresAt,
    null,
    'null: never expires',
  );
  assertError(await api.post(`/self/${shopId}/licenses/${id}/extend`, { addDays: 1 }), 400, 'validation_error');
  assertError(await api.post(`/self/${shopId}/licenses/${id}/extend`, {}), 400, 'validation_error');
  assertError(
    await api.post(`/self/${shopId}/licenses/${id}/extend`, { addDays: 1, expiresAt: '2100-01-01T00:00:00Z' }),
    400,
    'validation_error',
  );

  const disabled = assertOk(await owned('/disable'));
  assert.equal(disabled.status, 'disabled');
  assert.equal(disabled.activations.length, 1, 'its instances stay');
  const paused = assertOk(await call(shopId, 'validate', { licenseKey: key }));
  assert.deepEqual([paused.valid, paused.license.status], [false, 'disabled']);
  assert.deepEqual((await call(shopId, 'activate', { licenseKey: key, instanceName: 'x' })).body.errors, [
    'licenseKey: is disabled',
  ]);
  assertError(await owned('/disable'), 409, 'conflict');
  assert.equal(assertOk(await owned('/enable')).status, 'active');
  assertError(await owned('/enable'), 409, 'conflict');
  assert.equal(assertOk(await call(shopId, 'validate', { licenseKey: key })).valid, true);

  const revoked = assertOk(await owned('/revoke'));
  assert.equal(revoked.status, 'revoked');
  assert.equal(assertOk(await call(shopId, 'validate', { licenseKey: key })).license.status, 'revoked');
  for (const action of ['/enable', '/disable', '/revoke']) assertError(await owned(action), 409, 'conflict');
  assertError(await api.post(`/self/${shopId}/licenses/${id}/extend`, { addDays: 1 }), 409, 'conflict');
  // Freeing an instance still works, whatever the status.
  assert.equal(
    assertOk(await call(shopId, 'deactivate', { licenseKey: key, instanceId: live.instanceId })).deactivated,
    true,
  );
  assert.deepEqual(
    (await events(shopId, 'license.revoked')).map((e) => [e.licenseId, e.reason]),
    [[id, 'owner']],
  );
});

test('a key never answers at another shop: the same key text sold by two shops is two licences', async (t) => {
  const { app, api, shop, sell, call, verify, jwks, issuer } = await setup(t);
  const other = await sellingShop(api);
  assert.notEqual(other.shopId, shop.shopId);
  await sell(shop, ['SHARED-KEY-TEXT', 'ONLY-AT-THE-FIRST'], { activationLimit: 1 });
  await sell(other, ['SHARED-KEY-TEXT'], { activationLimit: 1 });

  const here = assertOk(await call(shop.shopId, 'activate', { licenseKey: 'SHARED-KEY-TEXT', instanceName: 'A' }));
  const there = assertOk(await call(other.shopId, 'activate', { licenseKey: 'SHARED-KEY-TEXT', instanceName: 'B' }));
  assert.equal(there.license.activationUsage, 1, "the first shop's activation is not counted at the second");
  for (const action of ['validate', 'activate', 'deactivate'])
    assertError(
      await call(other.shopId, action, {
        licenseKey: 'ONLY-AT-THE-FIRST',
        instanceName: 'x',
        instanceId: here.instanceId,
      }),
      404,
      'not_found',
    );
  // An instance of the first shop's licence is no instance of the second's.
  const crossed = assertOk(
    await call(other.shopId, 'validate', { licenseKey: 'SHARED-KEY-TEXT', instanceId: here.instanceId }),
  );
  assert.equal(crossed.valid, false);
  assertError(
    await call(other.shopId, 'deactivate', { licenseKey: 'SHARED-KEY-TEXT', instanceId: here.instanceId }),
    404,
    'not_found',
  );
  assert.equal(
    assertOk(await call(shop.shopId, 'validate', { licenseKey: 'SHARED-KEY-TEXT', instanceId: here.instanceId })).valid,
    true,
  );
  // Each shop signs with its own key: a token of one fails against the other's JWKS and issuer.
  assert.notEqual((await jwks(shop.shopId)).keys[0]!.kid, (await jwks(other.shopId)).keys[0]!.kid);
  await assert.rejects(verify(other.shopId, here.token));
  await assert.rejects(
    jwtVerify(here.token, createLocalJWKSet((await jwks(shop.shopId)) as never), { issuer: issuer(other.shopId) }),
  );
  assert.equal((await verify(shop.shopId, here.token)).sub, 'SHARED-KEY-TEXT');
  const missing = await app.inject({ url: '/v2/public/shops/999999/licenses/jwks' });
  assertError({ status: missing.statusCode, body: missing.json() }, 404, 'not_found');
});

test('the JWKS is a plain key set; tampered tokens fail; rotation keeps old tokens verifiable until they lapse', async (t) => {
  const { app, api, clock, shop, sell, call, verify, jwks } = await setup(t);
  const { shopId } = shop;
  const key = 'ROTA-TION-KEYS-0001';
  await sell(shop, [key]);

  const res = await app.inject({ url: `/v2/public/shops/${shopId}/licenses/jwks` });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['cache-control'], 'public, max-age=300');
  const set = res.json();
  assert.deepEqual(Object.keys(set), ['keys'], 'not wrapped in the envelope');
  assert.equal(set.keys.length, 1);
  assert.deepEqual(Object.keys(set.keys[0]).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x'], 'only the public half');
  assert.deepEqual(
    [set.keys[0].kty, set.keys[0].crv, set.keys[0].alg, set.keys[0].use],
    ['OKP', 'Ed25519', 'EdDSA', 'sig'],
  );

  const old = assertOk(await call(shopId, 'activate', { licenseKey: key, instanceName: 'Laptop' })).token as string;
  assert.equal((await verify(shopId, old)).sub, key);
  const [head, body, signature] = old.split('.') as [string, string, string];
  const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
  await assert.rejects(verify(shopId, `${head}.${flip(body, Math.floor(body.length / 2))}.${signature}`));
  await assert.rejects(verify(shopId, `${head}.${body}.${flip(signature, 10)}`));
  const forged = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), status: 'active', sub: 'FREE-KEY' }),
  ).toString('base64url');
  await assert.rejects(verify(shopId, `${head}.${forged}.${signature}`));

  const before = assertOk(await api.get(`/self/${shopId}/licenses/signing-keys`));
  assert.deepEqual(
    before.map((k: { kid: string; current: boolean }) => [k.kid, k.current]),
    [[set.keys[0].kid, true]],
  );
  clock.advance(1000);
  const rotated = assertOk(await api.post(`/self/${shopId}/licenses/signing-keys/rotate`));
  assert.equal(rotated.length, 2);
  const current = rotated.find((k: { current: boolean }) => k.current);
  const retired = rotated.find((k: { current: boolean }) => !k.current);
  assert.equal(retired.kid, set.keys[0].kid);
  assert.ok(retired.retiredAt);
  assert.notEqual(current.kid, retired.kid);
  assert.deepEqual(
    (await jwks(shopId)).keys.map((k) => k.kid),
    [current.kid, retired.kid],
    'the current key first, the retired one kept',
  );
  assert.equal((await verify(shopId, old)).sub, key, 'a token of the retired key still verifies');
  const fresh = assertOk(await call(shopId, 'validate', { licenseKey: key })).token as string;
  assert.equal(decodeProtectedHeader(fresh).kid, current.kid, 'new tokens use the new key');
  assert.equal((await verify(shopId, fresh)).sub, key);

  // Once every token of the retired key has lapsed, the JWKS drops it.
  clock.advance(app.config.licenses.tokenHours * HOUR + 10 * 60 * 1000);
  await assert.rejects(verify(shopId, old), 'the old token has expired by now');
  assert.deepEqual(
    (await jwks(shopId)).keys.map((k) => k.kid),
    [current.kid],
  );
  const later = assertOk(await call(shopId, 'validate', { licenseKey: key })).token as string;
  assert.equal((await verify(shopId, later)).sub, key);
});

test('signing keys are sealed secrets: rotated by `shopd secrets rotate`, replaced when unreadable', async (t) => {
  const { app, shop, sell, call, verify, jwks } = await setup(t);
  const { shopId } = shop;
  const key = 'SEAL-SEAL-SEAL-SEAL';
  await sell(shop, [key]);
  const { kid } = (await jwks(shopId)).keys[0]!;
  const sealed = await listSealedSecrets(app.db.kysely);
  assert.deepEqual(
    sealed
      .filter((s) => s.kind === 'license-signing-key')
      .map((s) => s.kind === 'license-signing-key' && [s.shopId, s.kid]),
    [[shopId, kid]],
  );
  const stored = await app.db.kysely.selectFrom('license_signing_keys').selectAll().executeTakeFirstOrThrow();
  assert.ok(!stored.sealed_private_key.includes('"d"'), 'the private key is sealed');
  assert.equal(app.secrets.tryOpen(stored.sealed_private_key)?.includes('"d"'), true);

  const newBox = secretBoxFromKey(Buffer.from('another-secret-key-0123456789'), 'test');
  const done = await rotateSecrets(app.db.kysely, app.secrets, newBox);
  assert.equal(done.signingKeys, 1);
  const resealed = await app.db.kysely.selectFrom('license_signing_keys').selectAll().executeTakeFirstOrThrow();
  assert.equal(newBox.tryOpen(resealed.sealed_private_key), app.secrets.open(stored.sealed_private_key));
  assert.equal(app.secrets.tryOpen(resealed.sealed_private_key), undefined);

  // This server's key no longer opens it (as after a lost key): the next signature makes a new key.
  const token = assertOk(await call(shopId, 'validate', { licenseKey: key })).token as string;
  const keys = (await jwks(shopId)).keys.map((k) => k.kid);
  assert.equal(keys.length, 2);
  assert.equal(keys[1], kid, 'the unreadable key stays published for the tokens it signed');
  assert.equal(decodeProtectedHeader(token).kid, keys[0]);
  assert.equal((await verify(shopId, token)).sub, key);
});

test('the owner lists, reads and resets licences; another account gets 404 and changes nothing', async (t) => {
  const { app, api, shop, sell, call, events } = await setup(t);
  const { shopId, productId } = shop;
  await sell(shop, ['LIST-AAAA-0001', 'LIST-AAAA-0002'], { email: 'Ann@Example.com' });
  const { invoiceId } = await sell(shop, ['LIST-BBBB-0001'], { email: 'bob@example.com', activationLimit: 5 });
  const list = (query = '') => api.get(`/self/${shopId}/licenses${query}`).then(assertOk);

  const all = await list();
  assert.equal(all.totalCount, 3);
  assert.deepEqual(all.items.map((l: { licenseKey: string }) => l.licenseKey).sort(), [
    'LIST-AAAA-0001',
    'LIST-AAAA-0002',
    'LIST-BBBB-0001',
  ]);
  assert.equal(all.items[0].email, 'bob@example.com', 'newest first');
  const bobs = await list('?email=BOB@example.com');
  assert.deepEqual(
    bobs.items.map((l: { licenseKey: string; invoiceId: string }) => [l.licenseKey, l.invoiceId]),
    [['LIST-BBBB-0001', invoiceId]],
  );
  assert.equal((await list('?searchString=aaaa-0002')).items[0].licenseKey, 'LIST-AAAA-0002');
  assert.equal((await list('?searchString=ann@')).totalCount, 2, 'e-mails are stored lower-case and searched');
  assert.equal((await list(`?productId=${productId}`)).totalCount, 3);
  assert.equal((await list(`?productId=${productId + 1000}`)).totalCount, 0);
  const page = await list('?pageSize=2');
  assert.equal(page.items.length, 2);
  const next = await list(`?pageSize=2&cursor=${page.nextCursor}`);
  assert.equal(next.items.length, 1);
  assert.equal(next.nextCursor, null);

  const bob = bobs.items[0];
  const machines = [];
  for (const name of ['One', 'Two', 'Three'])
    machines.push(assertOk(await call(shopId, 'activate', { licenseKey: 'LIST-BBBB-0001', instanceName: name })));
  assertOk(await call(shopId, 'deactivate', { licenseKey: 'LIST-BBBB-0001', instanceId: machines[0].instanceId }));
  assert.deepEqual(
    (await list('?status=active')).items.map((l: { id: number }) => l.id),
    [bob.id],
  );
  assert.equal((await list('?status=inactive')).totalCount, 2);
  const one = assertOk(await api.get(`/self/${shopId}/licenses/${bob.id}`));
  assert.equal(one.activationUsage, 2);
  assert.deepEqual(
    one.activations
      .map((a: { name: string; deactivatedAt: string | null }) => [a.name, a.deactivatedAt === null])
      .sort(),
    [
      ['One', false],
      ['Three', true],
      ['Two', true],
    ],
  );

  const mallory = await owner(app);
  const before = assertOk(await api.get(`/self/${shopId}/licenses/${bob.id}`));
  for (const path of ['', '/disable', '/enable', '/reset', '/revoke', '/extend']) {
    const res =
      path === ''
        ? await mallory.get(`/self/${shopId}/licenses/${bob.id}`)
        : await mallory.post(
            `/self/${shopId}/licenses/${bob.id}${path}`,
            path === '/extend' ? { addDays: 1 } : undefined,
          );
    assertError(res, 404, 'not_found');
  }
  assertError(await mallory.get(`/self/${shopId}/licenses`), 404, 'not_found');
  assertError(await mallory.post(`/self/${shopId}/licenses/signing-keys/rotate`), 404, 'not_found');
  assert.deepEqual(assertOk(await api.get(`/self/${shopId}/licenses/${bob.id}`)), before, 'nothing changed');
  assertError(await api.get(`/self/${shopId}/licenses/999999`), 404, 'not_found');

  const reset = assertOk(await api.post(`/self/${shopId}/licenses/${bob.id}/reset`));
  assert.equal(reset.activationUsage, 0);
  assert.equal(reset.status, 'inactive');
  assert.ok(reset.activations.every((a: { deactivatedAt: string | null }) => a.deactivatedAt !== null));
  const byOwner = (await events(shopId, 'license.deactivated')).filter((e) => e.by === 'owner');
  assert.deepEqual(byOwner.map((e) => e.instanceName).sort(), ['Three', 'Two']);
  assert.deepEqual(byOwner.map((e) => e.activationUsage).sort(), [0, 1]);
  assert.equal(assertOk(await api.post(`/self/${shopId}/licenses/${bob.id}/reset`)).activationUsage, 0);
  assert.equal(
    (await call(shopId, 'validate', { licenseKey: 'LIST-BBBB-0001', instanceId: machines[1].instanceId })).body.data
      .valid,
    false,
  );
});

test('the buyer lists their licences in the customer area and frees an instance', async (t) => {
  const { app, shop, sell, call } = await setup(t);
  const { shopId } = shop;
  const { invoiceId } = await sell(shop, ['MINE-MINE-0001'], { email: 'me@example.com', activationLimit: 2 });
  await sell(shop, ['THEIRS-0000-0001'], { email: 'them@example.com' });
  const mine = assertOk(await call(shopId, 'activate', { licenseKey: 'MINE-MINE-0001', instanceName: 'Laptop' }));
  assertOk(await call(shopId, 'activate', { licenseKey: 'MINE-MINE-0001', instanceName: 'Desktop' }));
  const theirs = assertOk(await call(shopId, 'activate', { licenseKey: 'THEIRS-0000-0001', instanceName: 'X' }));

  const token = await customerSession(app, shopId, 'me@example.com');
  const as = (method: 'GET' | 'POST', url: string, bearer: string | null = token) =>
    app
      .inject({ method, url, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} })
      .then((r) => ({ status: r.statusCode, body: r.json(), headers: r.headers }));
  const base = `/v2/public/shops/${shopId}/customer/licenses`;

  const listed = await as('GET', base);
  const licenses = assertOk(listed);
  assert.equal(listed.headers['cache-control'], 'private, no-store');
  assert.equal(licenses.length, 1, "never another buyer's");
  const [license] = licenses;
  assert.equal(license.licenseKey, 'MINE-MINE-0001');
  assert.equal(license.invoiceId, invoiceId);
  assert.equal(license.status, 'active');
  assert.deepEqual(license.instances.map((i: { name: string }) => i.name).sort(), ['Desktop', 'Laptop']);
  assertError(await as('GET', base, null), 401, 'unauthorized');
  assertError(await as('GET', base, 'not-a-session'), 401, 'unauthorized');

  const free = (licenseId: number, instanceId: string, bearer?: string | null) =>
    as('POST', `${base}/${licenseId}/instances/${instanceId}/deactivate`, bearer);
  const freed = assertOk(await free(license.id, mine.instanceId));
  assert.equal(freed.deactivated, true);
  assert.deepEqual(
    freed.license.instances.map((i: { name: string }) => i.name),
    ['Desktop'],
  );
  assert.equal(freed.license.activationUsage, 1);
  assert.equal(assertOk(await free(license.id, mine.instanceId)).deactivated, false);
  assertError(await free(license.id, theirs.instanceId), 404, 'not_found');
  const theirLicense = (
    await app.db.kysely
      .selectFrom('licenses')
      .select('id')
      .where('license_key', '=', 'THEIRS-0000-0001')
      .executeTakeFirstOrThrow()
  ).id;
  assertError(await free(theirLicense, theirs.instanceId), 404, 'not_found');
  assertError(await free(license.id, mine.instanceId, null), 401, 'unauthorized');
  assert.equal(
    assertOk(await call(shopId, 'validate', { licenseKey: 'THEIRS-0000-0001', instanceId: theirs.instanceId })).valid,
    true,
    "the other buyer's instance is untouched",
  );
  const event = (
    await app.db.kysely.selectFrom('events').select('payload').where('type', '=', 'license.deactivated').execute()
  ).map((e) => JSON.parse(e.payload));
  assert.deepEqual(
    event.map((e) => [e.instanceId, e.by]),
    [[mine.instanceId, 'customer']],
  );
});

test("a full refund revokes the order's licences; a partial one does not", async (t) => {
  const { api, shop, sell, call, events } = await setup(t);
  const { shopId } = shop;
  const { invoiceId } = await sell(shop, ['REFUND-0001', 'REFUND-0002']);
  const { invoiceId: kept } = await sell(shop, ['KEPT-0001']);
  assertOk(await call(shopId, 'activate', { licenseKey: 'REFUND-0001', instanceName: 'Laptop' }));

  assertOk(await api.post(`/self/${shopId}/invoices/${invoiceId}/refund`, { amount: 1, reason: 'part' }));
  assert.equal(assertOk(await call(shopId, 'validate', { licenseKey: 'REFUND-0001' })).valid, true);
  assert.deepEqual(await events(shopId, 'license.revoked'), []);

  assertOk(await api.post(`/self/${shopId}/invoices/${invoiceId}/refund`, { reason: 'the rest' }));
  for (const licenseKey of ['REFUND-0001', 'REFUND-0002']) {
    const answer = assertOk(await call(shopId, 'validate', { licenseKey }));
    assert.deepEqual([answer.valid, answer.license.status, answer.token], [false, 'revoked', null]);
  }
  assertError(await call(shopId, 'activate', { licenseKey: 'REFUND-0002', instanceName: 'x' }), 422, 'unprocessable');
  assert.equal(assertOk(await call(shopId, 'validate', { licenseKey: 'KEPT-0001' })).valid, true);
  const revoked = await events(shopId, 'license.revoked');
  assert.deepEqual(revoked.map((e) => [e.licenseKey, e.invoiceId, e.reason]).sort(), [
    ['REFUND-0001', invoiceId, 'refund'],
    ['REFUND-0002', invoiceId, 'refund'],
  ]);
  const view = assertOk(await api.get(`/self/${shopId}/invoices/${invoiceId}`));
  if (view.licenses) assert.ok(view.licenses.every((l: { status: string }) => l.status === 'revoked'));
  assert.notEqual(kept, invoiceId);
});

test('a key sold again keeps its first licence, and the order still completes', async (t) => {
  const { app, shop, sell, licenseIdOf } = await setup(t);
  const first = await sell(shop, ['REUSED-SERIAL-1'], { email: 'first@example.com' });
  const second = await sell(shop, ['REUSED-SERIAL-1', 'NEW-SERIAL-2'], { email: 'second@example.com' });
  const rows = await app.db.kysely
    .selectFrom('licenses')
    .select(['license_key', 'invoice_id', 'email'])
    .where('shop_id', '=', shop.shopId)
    .orderBy('id')
    .execute();
  assert.deepEqual(rows, [
    { license_key: 'REUSED-SERIAL-1', invoice_id: first.invoiceId, email: 'first@example.com' },
    { license_key: 'NEW-SERIAL-2', invoice_id: second.invoiceId, email: 'second@example.com' },
  ]);
  assert.ok((await licenseIdOf(shop.shopId, 'REUSED-SERIAL-1')) > 0);
});

test('calls are rate-limited per key of the shop as well as per client IP', async (t) => {
  const { shop, sell, call } = await setup(t, { RATE_LIMIT_PUBLIC_MAX: '30' });
  await sell(shop, ['LIMITED-0001', 'LIMITED-0002']);
  // A tenth of the per-IP budget per key: 3, from any address.
  for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3'])
    assertOk(await call(shop.shopId, 'validate', { licenseKey: 'LIMITED-0001' }, ip));
  const refused = await call(shop.shopId, 'validate', { licenseKey: 'LIMITED-0001' }, '10.0.0.4');
  assertError(refused, 429, 'rate_limited');
  assert.ok(Number(refused.headers['retry-after']) > 0);
  assertError(
    await call(shop.shopId, 'activate', { licenseKey: 'LIMITED-0001', instanceName: 'x' }, '10.0.0.5'),
    429,
    'rate_limited',
  );
  assertOk(await call(shop.shopId, 'validate', { licenseKey: 'LIMITED-0002' }, '10.0.0.4'));
});

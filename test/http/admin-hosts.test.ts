import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { isAdminHost } from '../../src/http/admin-hosts.js';
import { setPassword } from '../../src/modules/accounts/index.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

/**
 * The web admin and owner sessions only on the operator's hosts (issue 36, M3): PUBLIC_URL's host
 * and ADMIN_HOSTS. A shop's subdomain or custom domain answers 404 for /admin, sign-in, sign-out
 * and any call made with the session cookie; API keys keep working on any host.
 */

const PASSWORD = 'correct horse battery staple';
const ENV = {
  PUBLIC_URL: 'https://shopd.example.com',
  ADMIN_HOSTS: 'Admin.Example.net, ops.example.org',
  STOREFRONT_DOMAIN: 'shops.example.com',
};

async function setup(t: TestContext) {
  const app = await build(t, ENV);
  const email = `owner-${Math.random().toString(36).slice(2)}@example.com`;
  const api = await owner(app, { email });
  await setPassword(app.ctx, email, PASSWORD);
  const shop = await createShop(api, 'Hosted');
  assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: 'keys.example.org' }));
  return { app, api, email, shop };
}

const signIn = (app: FastifyInstance, host: string, email: string) =>
  app.inject({ method: 'POST', url: '/self/session', headers: { host }, payload: { email, password: PASSWORD } });

const json = (res: Awaited<ReturnType<FastifyInstance['inject']>>) => ({ status: res.statusCode, body: res.json() });

test('the operator hosts: PUBLIC_URL, ADMIN_HOSTS (any case, port, trailing dot) and loopback names', () => {
  const config = { publicUrl: 'https://shopd.example.com', adminHosts: ['admin.example.net'] };
  for (const host of [
    'shopd.example.com',
    'SHOPD.example.com:443',
    'admin.example.net.',
    'localhost:3000',
    '127.0.0.1',
    '[::1]:8080',
  ])
    assert.equal(isAdminHost(config, host), true, host);
  for (const host of [
    undefined,
    '',
    'demo.shops.example.com',
    'keys.example.org',
    'shopd.example.com.evil.org',
    '203.0.113.7',
  ])
    assert.equal(isAdminHost(config, host), false, String(host));
});

test('sign-in works on PUBLIC_URL and ADMIN_HOSTS hosts and is a 404 without a cookie on tenant hosts', async (t) => {
  const { app, email, shop } = await setup(t);
  for (const host of ['shopd.example.com', 'admin.example.net:8443', 'ops.example.org']) {
    const res = await signIn(app, host, email);
    assert.equal(res.statusCode, 200, `${host}: ${res.body}`);
    assert.ok(String(res.headers['set-cookie']).includes('shopd_session='), host);
  }
  const before = await app.db.kysely.selectFrom('owner_sessions').select('id').execute();
  for (const host of [`${shop.subdomain}.shops.example.com`, 'keys.example.org', 'unknown.example.net']) {
    const res = await signIn(app, host, email);
    assertError(json(res), 404, 'not_found');
    assert.equal(res.headers['set-cookie'], undefined, `${host}: no cookie`);
    const setup = await app.inject({
      method: 'POST',
      url: '/self/password-setup',
      headers: { host },
      payload: { token: 'x'.repeat(43), password: PASSWORD },
    });
    assertError(json(setup), 404, 'not_found');
  }
  const after = await app.db.kysely.selectFrom('owner_sessions').select('id').execute();
  assert.equal(after.length, before.length, 'no session was created on a tenant host');
});

test('a session cookie is not accepted on a tenant host; an API key is', async (t) => {
  const { app, api, email, shop } = await setup(t);
  const signedIn = await signIn(app, 'shopd.example.com', email);
  assert.equal(signedIn.statusCode, 200);
  const lines = ([] as string[]).concat(signedIn.headers['set-cookie'] as string | string[]);
  const cookie = lines.map((line) => line.split(';')[0]).join('; ');
  const csrf = signedIn.json().data.csrfToken as string;

  const onAdmin = await app.inject({ url: '/self/shops', headers: { host: 'shopd.example.com', cookie } });
  assert.equal(onAdmin.statusCode, 200);
  for (const host of ['keys.example.org', `${shop.subdomain}.shops.example.com`]) {
    const read = await app.inject({ url: '/self/shops', headers: { host, cookie } });
    assertError(json(read), 404, 'not_found');
    const session = await app.inject({ url: '/self/session', headers: { host, cookie } });
    assertError(json(session), 404, 'not_found');
    const signOut = await app.inject({
      method: 'DELETE',
      url: '/self/session',
      headers: { host, cookie, 'x-csrf-token': csrf },
    });
    assertError(json(signOut), 404, 'not_found');
    const rename = await app.inject({
      method: 'PUT',
      url: `/self/${shop.id}/settings/name`,
      headers: { host, cookie, 'x-csrf-token': csrf },
      payload: { newName: 'Taken over' },
    });
    assertError(json(rename), 404, 'not_found');
    // An API key is no browser credential: integrations may call through any host.
    const byKey = await app.inject({ url: '/self/shops', headers: { host, authorization: `Bearer ${api.key}` } });
    assert.equal(byKey.statusCode, 200, host);
  }
  const still = await app.inject({ url: '/self/session', headers: { host: 'shopd.example.com', cookie } });
  assert.equal(still.statusCode, 200, 'the session itself goes on on the operator host');
  const renamed = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.equal(renamed.name, 'Hosted');
});

test('/admin answers only on the operator hosts; the storefront keeps serving tenant hosts', async (t) => {
  const { app, api, shop } = await setup(t);
  for (const host of ['shopd.example.com', 'admin.example.net', 'localhost:3000']) {
    for (const url of ['/admin', '/admin/', '/admin/shops/1/orders']) {
      const res = await app.inject({ url, headers: { host } });
      assert.notEqual(res.statusCode, 404, `${host}${url}`);
    }
  }
  for (const host of ['keys.example.org', `${shop.subdomain}.shops.example.com`, 'unknown.example.net']) {
    for (const url of ['/admin', '/admin/', '/admin/shops/1/orders']) {
      const res = await app.inject({ url, headers: { host } });
      assert.equal(res.statusCode, 404, `${host}${url}`);
      assert.doesNotMatch(res.body, /<div id="root"|id="app"/, 'no admin page');
    }
  }
  // An ADMIN_HOSTS name is the operator's, never mistaken for a custom domain.
  const root = await app.inject({ url: '/', headers: { host: 'admin.example.net' } });
  const own = await app.inject({ url: '/', headers: { host: 'shopd.example.com' } });
  assert.equal(root.statusCode, own.statusCode, 'answered as the instance, not looked up as a shop');
  assert.equal(root.body, own.body);
  const claim = await api.put(`/self/${shop.id}/settings/domain`, { domain: 'Admin.example.net' });
  assertError(claim, 400, 'validation_error');
  const store = await app.inject({ url: '/', headers: { host: 'keys.example.org' } });
  assert.equal(store.statusCode, 200, 'the custom domain serves the storefront');
});

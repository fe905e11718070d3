import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { dnsServer } from '../helpers/dns-server.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

/**
 * Issue 36, M3: a custom domain is approved for TLS (/tls-ask) only once its owner proved it with
 * the DNS TXT record `_shopd-verify.<domain>` holding the shop's token. The check asks a DNS
 * server the test runs on 127.0.0.1 (DNS_SERVERS), never a public one; once found, it is kept
 * and DNS is asked no more.
 */

const ask = async (app: FastifyInstance, domain: string) => {
  const res = await app.inject({ url: '/tls-ask', query: { domain } });
  return { status: res.statusCode, body: res.json() };
};

/** /tls-ask asks DNS about an unverified domain at most once a minute (a miss is remembered). */
const RECHECK = 61_000;

async function setup(t: TestContext) {
  const dns = await dnsServer(t);
  const clock = new TestClock();
  const app = await build(
    t,
    {
      PUBLIC_URL: 'https://shopd.example.com',
      STOREFRONT_DOMAIN: 'shops.example.com',
      DNS_SERVERS: dns.server,
    },
    { clock },
  );
  const api = await owner(app);
  const shop = await createShop(api, 'Verified Keys');
  return { app, api, dns, shop, clock };
}

test('the owner sees the record to create; /tls-ask refuses the domain until DNS holds the token, then keeps it', async (t) => {
  const { app, api, dns, shop, clock } = await setup(t);
  const set = assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: 'Keys.Example.org' }));
  const v = set.domainVerification;
  assert.equal(v.record, '_shopd-verify.keys.example.org');
  assert.equal(v.type, 'TXT');
  assert.match(v.value, /^shopd-verify=[A-Za-z0-9_-]{24}$/);
  assert.equal(v.verified, false);
  assert.equal(v.verifiedAt, null);
  assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)).domainVerification, v, 'in the settings too');

  // No record, another value, a record of another name: no certificate.
  assertError(await ask(app, 'keys.example.org'), 404, 'not_found');
  dns.txt('_shopd-verify.keys.example.org', 'shopd-verify=someone-elses-token', 'v=spf1 -all');
  dns.txt('keys.example.org', v.value);
  clock.advance(RECHECK);
  assertError(await ask(app, 'keys.example.org'), 404, 'not_found');
  assert.ok(dns.questions.includes('_shopd-verify.keys.example.org'), 'DNS was asked');
  const owned = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.equal(owned.domainVerification.verified, false);

  // The token among other TXT records: approved, and kept.
  dns.txt('_shopd-verify.keys.example.org', 'v=spf1 -all', v.value);
  clock.advance(RECHECK);
  assert.deepEqual(assertOk(await ask(app, 'keys.example.org')), {
    domain: 'keys.example.org',
    serves: 'customDomain',
  });
  const verified = assertOk(await api.get(`/self/${shop.id}/settings`)).domainVerification;
  assert.equal(verified.verified, true);
  assert.ok(Date.parse(verified.verifiedAt) > 0);

  // Found once is enough: the record may go, and /tls-ask asks DNS no more.
  dns.txt('_shopd-verify.keys.example.org');
  const asked = dns.questions.length;
  for (let i = 0; i < 3; i++) assertOk(await ask(app, 'keys.example.org'));
  assert.equal(dns.questions.length, asked, 'no DNS question for a verified domain');
});

test('a new domain needs a new proof; the old token does not verify it', async (t) => {
  const { app, api, dns, shop, clock } = await setup(t);
  const first = assertOk(
    await api.put(`/self/${shop.id}/settings/domain`, { domain: 'one.example.org' }),
  ).domainVerification;
  dns.txt('_shopd-verify.one.example.org', first.value);
  assertOk(await ask(app, 'one.example.org'));

  const second = assertOk(
    await api.put(`/self/${shop.id}/settings/domain`, { domain: 'two.example.org' }),
  ).domainVerification;
  assert.notEqual(second.value, first.value, 'a new token');
  assert.equal(second.verified, false);
  assertError(await ask(app, 'one.example.org'), 404, 'not_found');
  dns.txt('_shopd-verify.two.example.org', first.value);
  assertError(await ask(app, 'two.example.org'), 404, 'not_found');
  dns.txt('_shopd-verify.two.example.org', second.value);
  clock.advance(RECHECK);
  assertOk(await ask(app, 'two.example.org'));

  // Cleared: nothing to verify, nothing shown.
  const cleared = assertOk(await api.put(`/self/${shop.id}/settings/domain`, { domain: null }));
  assert.equal(cleared.domainVerification, null);
  assertError(await ask(app, 'two.example.org'), 404, 'not_found');
});

test('POST settings/domain/verify checks now: 422 naming the record, 200 once found, 409 without a domain', async (t) => {
  const { app, api, dns, shop } = await setup(t);
  const verify = () => api.post(`/self/${shop.id}/settings/domain/verify`);
  assertError(await verify(), 409, 'conflict');
  const { value } = assertOk(
    await api.put(`/self/${shop.id}/settings/domain`, { domain: 'shop.example.net' }),
  ).domainVerification;
  const missing = await verify();
  assertError(missing, 422, 'unprocessable');
  assert.match(missing.body.errors.join(), /_shopd-verify\.shop\.example\.net/);
  assert.equal(
    assertOk(await api.get(`/self/${shop.id}/settings`)).domainVerification.verified,
    false,
    'nothing changed',
  );

  dns.txt('_shopd-verify.shop.example.net', value);
  const done = assertOk(await verify());
  assert.equal(done.domainVerification.verified, true);
  assert.equal(assertOk(await verify()).domainVerification.verified, true, 'again: 200');

  // Another account's key: the shop is not theirs (404, as for any shop).
  const other = await owner(app);
  assertError(await other.post(`/self/${shop.id}/settings/domain/verify`), 404, 'not_found');
});

test('/tls-ask asks DNS about an unverified domain once a minute, one question for simultaneous asks; "check now" always asks', async (t) => {
  const { app, api, dns, shop, clock } = await setup(t);
  const v = assertOk(
    await api.put(`/self/${shop.id}/settings/domain`, { domain: 'slow.example.org' }),
  ).domainVerification;
  const asked = () => dns.questions.filter((q) => q === '_shopd-verify.slow.example.org').length;

  // A burst of handshakes for the name, at once and then one after another: one DNS question.
  const burst = await Promise.all(Array.from({ length: 5 }, () => ask(app, 'slow.example.org')));
  for (const res of burst) assertError(res, 404, 'not_found');
  for (let i = 0; i < 5; i++) assertError(await ask(app, 'slow.example.org'), 404, 'not_found');
  assert.equal(asked(), 1);

  // The record appears: within the minute /tls-ask still refuses, the owner's check finds it at once.
  dns.txt('_shopd-verify.slow.example.org', v.value);
  clock.advance(30_000);
  assertError(await ask(app, 'slow.example.org'), 404, 'not_found');
  assert.equal(asked(), 1);
  assert.equal(assertOk(await api.post(`/self/${shop.id}/settings/domain/verify`)).domainVerification.verified, true);
  assert.equal(asked(), 2);
  assertOk(await ask(app, 'slow.example.org'));

  // Another domain's miss, a minute later, is asked again.
  const other = await createShop(api, 'Other');
  assertOk(await api.put(`/self/${other.id}/settings/domain`, { domain: 'later.example.org' }));
  assertError(await ask(app, 'later.example.org'), 404, 'not_found');
  assertError(await ask(app, 'later.example.org'), 404, 'not_found');
  clock.advance(RECHECK);
  assertError(await ask(app, 'later.example.org'), 404, 'not_found');
  assert.equal(dns.questions.filter((q) => q === '_shopd-verify.later.example.org').length, 2);
});

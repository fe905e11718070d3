import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, type Client, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { dnsServer } from '../helpers/dns-server.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { selectsDuring } from '../helpers/queries.js';

/**
 * `GET /tls-ask?domain=…`, the endpoint a reverse proxy asks before it obtains a certificate on
 * demand (deploy/Caddyfile): 200 for the hosts this instance serves, 404 for every other, 400
 * for what is no host name. test/deploy-proxy.test.ts runs it behind Caddy. A custom domain is
 * served once its DNS TXT verification record is found (test/modules/domain-verification.test.ts);
 * here a DNS server of the test's holds the records.
 */

const env = { PUBLIC_URL: 'https://shopd.example.com', STOREFRONT_DOMAIN: 'shops.example.com' };

const ask = (app: FastifyInstance, domain: string | undefined) =>
  app.inject({ url: '/tls-ask', query: domain === undefined ? {} : { domain } });

type Dns = Awaited<ReturnType<typeof dnsServer>>;

function reply(res: { statusCode: number; json(): any }) {
  return { status: res.statusCode, body: res.json() };
}

async function allowed(app: FastifyInstance, domain: string, serves: string, name = domain) {
  const data = assertOk(reply(await ask(app, domain)));
  assert.deepEqual(data, { domain: name, serves }, domain);
}

async function refused(app: FastifyInstance, domain: string) {
  const res = reply(await ask(app, domain));
  assertError(res, 404, 'not_found');
  return res;
}

/** Sets the shop's custom domain and publishes its verification record. */
async function verifiedDomain(api: Client, shopId: number, dns: Dns, domain: string) {
  const { domainVerification } = assertOk(await api.put(`/self/${shopId}/settings/domain`, { domain }));
  dns.txt(domainVerification.record, domainVerification.value);
}

test("the instance's host, every account's shop subdomains and verified custom domains are allowed; nothing else", async (t) => {
  const dns = await dnsServer(t);
  const clock = new TestClock();
  const app = await build(t, { ...env, ADMIN_HOSTS: 'admin.example.net', DNS_SERVERS: dns.server }, { clock });
  const alice = await owner(app);
  const bob = await owner(app);
  const keys = await createShop(alice, 'Alice Keys');
  const books = await createShop(bob, 'Bob Books');
  await verifiedDomain(alice, keys.id, dns, 'keys.example.org');
  // Set but not proven: no certificate.
  assertOk(await bob.put(`/self/${books.id}/settings/domain`, { domain: 'Books.Example.NET' }));
  await refused(app, 'books.example.net');
  await verifiedDomain(bob, books.id, dns, 'Books.Example.NET');
  // A miss is remembered for a minute (src/modules/shops/domain-verification.ts).
  clock.advance(61_000);

  await allowed(app, 'admin.example.net', 'instance');

  await allowed(app, 'shopd.example.com', 'instance');
  await allowed(app, 'SHOPD.example.com.', 'instance', 'shopd.example.com');
  await allowed(app, `${keys.subdomain}.shops.example.com`, 'subdomain');
  await allowed(app, `${books.subdomain}.shops.example.com`, 'subdomain');
  await allowed(app, 'keys.example.org', 'customDomain');
  // Another account's shop is as much this instance's as the first: the proxy asks for the instance.
  await allowed(app, 'books.example.net', 'customDomain');
  await allowed(app, 'Books.Example.net:443', 'customDomain', 'books.example.net');

  const unknown = await refused(app, 'nobody.example.net');
  assert.deepEqual(unknown.body.errors, ['domain: nobody.example.net is not served here']);
  await refused(app, 'ghost-shop.shops.example.com');
  await refused(app, 'www.shops.example.com');
  await refused(app, `x.${keys.subdomain}.shops.example.com`);
  await refused(app, 'shops.example.com');
  await refused(app, `${keys.subdomain}.shops.example.com.evil.test`);
  await refused(app, `sub.keys.example.org`);
  await refused(app, 'example.org');
  await refused(app, '203.0.113.7');

  // A shop's addresses change: the old ones stop being allowed at once, the new ones start.
  await verifiedDomain(alice, keys.id, dns, 'keys.example.com');
  await refused(app, 'keys.example.org');
  await allowed(app, 'keys.example.com', 'customDomain');
  assertOk(await alice.put(`/self/${keys.id}/settings/domain`, { domain: null }));
  await refused(app, 'keys.example.com');
  assertOk(await alice.put(`/self/${keys.id}/settings/subdomain`, { newSubDomain: 'renamed-keys' }));
  await refused(app, `${keys.subdomain}.shops.example.com`);
  await allowed(app, 'renamed-keys.shops.example.com', 'subdomain');
});

test('without STOREFRONT_DOMAIN, subdomain hosts are not served: only custom domains and the instance', async (t) => {
  const dns = await dnsServer(t);
  const app = await build(t, { PUBLIC_URL: 'https://shopd.example.com', DNS_SERVERS: dns.server });
  const api = await owner(app);
  const shop = await createShop(api, 'Plain Shop');
  await verifiedDomain(api, shop.id, dns, 'plain.example.org');
  await allowed(app, 'shopd.example.com', 'instance');
  await allowed(app, 'plain.example.org', 'customDomain');
  await refused(app, `${shop.subdomain}.shops.example.com`);
});

test('what is no host name is a 400 in the usual envelope, never a 500', async (t) => {
  const app = await build(t, env);
  const missing = reply(await ask(app, undefined));
  assertError(missing, 400, 'validation_error');
  assert.ok(
    missing.body.errors.some((e: string) => e.startsWith('domain')),
    missing.body.errors.join(),
  );
  for (const domain of [
    '',
    'bad_host!.example.com',
    'localhost',
    '[::1]',
    '-lead.example.com',
    'a..example.com',
    `${'a'.repeat(64)}.example.com`,
    `${'abcdefgh.'.repeat(30)}com`,
    'shop.example.com/path',
    'shop.example.com\u0000',
    'shöp.example.com',
  ]) {
    const res = reply(await ask(app, domain));
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors.join(), /domain/, JSON.stringify(domain));
  }
  // Given twice, or as an object: a 400 as well.
  for (const url of ['/tls-ask?domain=a.example.com&domain=b.example.com', '/tls-ask?domain[x]=a.example.com'])
    assertError(reply(await app.inject({ url })), 400, 'validation_error');
});

test('one indexed read per question, outside the rate limits and the public contract', async (t) => {
  const app = await build(t, { ...env, RATE_LIMIT_PUBLIC_MAX: '2', RATE_LIMIT_OWNER_MAX: '2' });
  const api = await owner(app);
  const shop = await createShop(api, 'Busy Shop');
  assertEqualReads(await selectsDuring(app, () => ask(app, `${shop.subdomain}.shops.example.com`)), 1);
  assertEqualReads(await selectsDuring(app, () => ask(app, 'nobody.example.net')), 1);
  assertEqualReads(await selectsDuring(app, () => ask(app, 'shopd.example.com')), 0);

  // A proxy asks for every new name: never a 429, while a limited path is limited after 2.
  for (let i = 0; i < 6; i++) {
    const res = await ask(app, `${shop.subdomain}.shops.example.com`);
    assert.equal(res.statusCode, 200, `ask ${i + 1}: ${res.body}`);
    assert.equal(res.headers['ratelimit-limit'], undefined);
  }
  const limited = [];
  for (let i = 0; i < 4; i++) limited.push((await api.get('/self/shops')).status);
  assert.ok(limited.includes(429), `an owner path is limited: ${limited}`);

  const doc = (await app.inject('/openapi.json')).json();
  assert.ok(!('/tls-ask' in doc.paths), 'the proxy endpoint is not part of the public contract');
  assert.ok('/health' in doc.paths, 'the document lists the system paths');
});

function assertEqualReads(actual: number, expected: number) {
  assert.equal(actual, expected, `${actual} reads, expected ${expected}`);
}

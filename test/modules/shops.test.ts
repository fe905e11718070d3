import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

test('creating and listing shops', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  assert.deepEqual(assertOk(await api.get('/self/shops')), []);

  const shop = assertOk(await api.post('/self/shops', { name: '  Crème Brûlée Keys  ' }));
  assert.equal(shop.name, 'Crème Brûlée Keys');
  assert.equal(shop.subdomain, 'creme-brulee-keys');
  assert.equal(shop.currency, 'USD');
  assert.equal(shop.utcTimezoneOffset, 0);
  assert.equal(shop.onHold, false);
  assert.equal(shop.passwordProtected, false);
  assert.equal(shop.popup, null);
  assert.equal(shop.terms, null);
  assert.ok(Number.isInteger(shop.id) && shop.id > 0);
  assert.match(shop.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const second = assertOk(await api.post('/self/shops', { name: 'Creme Brulee Keys' }));
  assert.equal(second.subdomain, 'creme-brulee-keys-2', 'subdomains stay unique');
  const list = assertOk(await api.get('/self/shops'));
  assert.deepEqual(
    list.map((s: { id: number }) => s.id),
    [second.id, shop.id],
  );
  // Each item carries the shop again under `shop`, as the original SDKs read it.
  const { shop: nested, ...top } = list[1];
  assert.deepEqual(nested, top);
  assert.equal(nested.id, shop.id);
  assert.equal(nested.subdomain, 'creme-brulee-keys');

  // Another account sees none of them.
  const other = await owner(app);
  assert.deepEqual(assertOk(await other.get('/self/shops')), []);
});

test('subdomains derived from awkward names are valid and never reserved', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const pattern = /^[a-z0-9](?:[a-z0-9-]{1,30}[a-z0-9])$/;
  for (const name of ['X', 'Shop', '!!!', '日本語のお店', 'a'.repeat(64), 'www']) {
    const shop = assertOk(await api.post('/self/shops', { name }));
    assert.match(shop.subdomain, pattern, `subdomain for ${JSON.stringify(name)}`);
    assert.ok(!['shop', 'www'].includes(shop.subdomain));
  }
});

test('creating a shop validates the name', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(65) }, { name: 42 }, { name: null }]) {
    const res = await api.post('/self/shops', body);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^name: /);
  }
  assertError(await api.post('/self/shops', [1, 2]), 400, 'validation_error');
  assert.deepEqual(assertOk(await api.get('/self/shops')), [], 'nothing was created');
});

test('GET settings answers the shop with payments and design', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const settings = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.equal(settings.id, shop.id);
  assert.equal(settings.name, 'Test Shop');
  assert.deepEqual(Object.keys(settings.payments).sort(), [
    'balance',
    'cardconnect',
    'cardreader',
    'cryptocommerce',
    'mobilecash',
    'tipjar',
    'virtual-payments',
    'wallet-ff',
    'walletemail',
  ]);
  assert.deepEqual(settings.payments.cryptocommerce, {
    enabled: false,
    configured: false,
    secretsUnreadable: false,
    gatewayRules: { blockVpn: false },
    apiKey: null,
    webhookSecret: null,
  });
  assert.equal(settings.design.design.disableSnow, false);
  assert.equal(settings.design.design.hideProductStock, false);
  assert.match(settings.design.design.primaryColor, /^#[0-9a-f]{6}$/);
});

/** Each general setting: a good body, what it changes, and bad bodies that must change nothing. */
const cases: { path: string; good: object; check: (shop: any) => void; bad: unknown[] }[] = [
  {
    path: 'name',
    good: { newName: '  Renamed  ' },
    check: (s) => assert.equal(s.name, 'Renamed'),
    bad: [{}, { newName: '' }, { newName: '  ' }, { newName: 'x'.repeat(65) }, { newName: 1 }],
  },
  {
    path: 'subdomain',
    good: { newSubDomain: 'keys-4-you' },
    check: (s) => assert.equal(s.subdomain, 'keys-4-you'),
    bad: [
      {},
      { newSubDomain: 'ab' },
      { newSubDomain: 'Upper' },
      { newSubDomain: '-abc' },
      { newSubDomain: 'abc-' },
      { newSubDomain: 'a'.repeat(33) },
      { newSubDomain: 'has space' },
      { newSubDomain: 'www' },
      { newSubDomain: 'admin' },
    ],
  },
  {
    path: 'currency',
    good: { currency: 'EUR' },
    check: (s) => assert.equal(s.currency, 'EUR'),
    bad: [{}, { currency: 'eur' }, { currency: 'ZZZ' }, { currency: 'XAU' }, { currency: 'EURO' }, { currency: 978 }],
  },
  {
    path: 'password',
    good: { password: 'open sesame' },
    check: (s) => assert.equal(s.passwordProtected, true),
    bad: [{}, { password: 'abc' }, { password: 'x'.repeat(129) }, { password: 1234 }],
  },
  {
    path: 'timezone',
    good: { utcTimezoneOffset: 330 },
    check: (s) => assert.equal(s.utcTimezoneOffset, 330),
    bad: [
      {},
      { utcTimezoneOffset: -721 },
      { utcTimezoneOffset: 841 },
      { utcTimezoneOffset: 1.5 },
      { utcTimezoneOffset: '60' },
    ],
  },
  {
    path: 'status',
    good: { onHold: true },
    check: (s) => assert.equal(s.onHold, true),
    bad: [{}, { onHold: 'yes' }, { onHold: 1 }, { onHold: null }],
  },
  {
    path: 'popup',
    good: { message: 'Sale today!' },
    check: (s) => assert.equal(s.popup, 'Sale today!'),
    bad: [{}, { message: 'x'.repeat(2001) }, { message: 5 }],
  },
  {
    path: 'terms',
    good: { terms: 'No refunds.' },
    check: (s) => assert.equal(s.terms, 'No refunds.'),
    bad: [{}, { terms: 'x'.repeat(50001) }, { terms: false }],
  },
  {
    path: 'affiliate',
    good: { percentage: 12.5 },
    check: (s) => assert.equal(s.affiliatePercentage, 12.5),
    bad: [{}, { percentage: -1 }, { percentage: 100.01 }, { percentage: 1.234 }, { percentage: '5' }],
  },
  {
    path: 'invoices',
    good: { lifetimeMinutes: 30 },
    check: (s) => assert.equal(s.invoiceLifetimeMinutes, 30),
    bad: [{}, { lifetimeMinutes: 4 }, { lifetimeMinutes: 10081 }, { lifetimeMinutes: 5.5 }],
  },
];

for (const c of cases) {
  test(`PUT settings/${c.path}: applies a good body, refuses bad ones with 400 and no change`, async (t) => {
    const app = await build(t);
    const api = await owner(app);
    const shop = await createShop(api);
    const before = assertOk(await api.get(`/self/${shop.id}/settings`));
    for (const body of c.bad) {
      const res = await api.put(`/self/${shop.id}/settings/${c.path}`, body);
      assertError(res, 400, 'validation_error');
      for (const e of res.body.errors) assert.match(e, /^[\w.[\]]+: .+/, `error string shape: ${e}`);
    }
    assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)), before, 'bad bodies changed nothing');
    const updated = assertOk(await api.put(`/self/${shop.id}/settings/${c.path}`, c.good));
    c.check(updated);
    c.check(assertOk(await api.get(`/self/${shop.id}/settings`)));
  });
}

test('subdomains are unique across all shops, of every account', async (t) => {
  const app = await build(t);
  const alice = await owner(app);
  const bob = await owner(app);
  const a = await createShop(alice, 'Alice');
  const b = await createShop(bob, 'Bob');
  assertOk(await alice.put(`/self/${a.id}/settings/subdomain`, { newSubDomain: 'taken-name' }));
  const res = await bob.put(`/self/${b.id}/settings/subdomain`, { newSubDomain: 'taken-name' });
  assertError(res, 409, 'conflict');
  assert.deepEqual(res.body.errors, ['newSubDomain: is already taken']);
  assert.equal(assertOk(await bob.get(`/self/${b.id}/settings`)).subdomain, b.subdomain);
  // Setting a shop's own subdomain again is not a conflict.
  assertOk(await alice.put(`/self/${a.id}/settings/subdomain`, { newSubDomain: 'taken-name' }));
});

test('a subdomain a shop gives up is held for its account until SUBDOMAIN_HOLD_DAYS have passed', async (t) => {
  const clock = new TestClock();
  const app = await build(t, { SUBDOMAIN_HOLD_DAYS: '30' }, { clock });
  const alice = await owner(app);
  const bob = await owner(app);
  const a = await createShop(alice, 'Alice');
  const a2 = await createShop(alice, 'Alice Two');
  const b = await createShop(bob, 'Bob');
  assertOk(await alice.put(`/self/${a.id}/settings/subdomain`, { newSubDomain: 'famous-keys' }));
  assertOk(await alice.put(`/self/${a.id}/settings/subdomain`, { newSubDomain: 'famous-keys-2' }));
  // Another account cannot claim it at once: a 409 saying until when.
  const held = await bob.put(`/self/${b.id}/settings/subdomain`, { newSubDomain: 'famous-keys' });
  assertError(held, 409, 'conflict');
  assert.match(held.body.errors[0], /^newSubDomain: is held for its former owner until \d{4}-/);
  assert.equal(assertOk(await bob.get(`/self/${b.id}/settings`)).subdomain, b.subdomain, 'nothing changed');
  // Nor does a new shop of another account get it from its name.
  const named = assertOk(await bob.post('/self/shops', { name: 'Famous Keys' }));
  assert.notEqual(named.subdomain, 'famous-keys');
  // The same account may take it back, with another of its shops too.
  assertOk(await alice.put(`/self/${a2.id}/settings/subdomain`, { newSubDomain: 'famous-keys' }));
  assertOk(await alice.put(`/self/${a2.id}/settings/subdomain`, { newSubDomain: 'alice-two' }));
  // Once the hold has passed, anyone may.
  clock.advance(30 * 86_400_000 + 1000);
  assertOk(await bob.put(`/self/${b.id}/settings/subdomain`, { newSubDomain: 'famous-keys' }));
});

test('storefront password is stored hashed and can be removed', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  assertOk(await api.put(`/self/${shop.id}/settings/password`, { password: 'hunter2-secret' }));
  const row = await app.db.kysely
    .selectFrom('shops')
    .select('password_hash')
    .where('id', '=', shop.id)
    .executeTakeFirstOrThrow();
  assert.ok(row.password_hash?.startsWith('scrypt$'));
  assert.ok(!row.password_hash!.includes('hunter2-secret'));
  const settings = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.equal(settings.passwordProtected, true);
  assert.ok(!JSON.stringify(settings).includes('scrypt'), 'the hash is never returned');
  assert.equal(
    assertOk(await api.put(`/self/${shop.id}/settings/password`, { password: null })).passwordProtected,
    false,
  );
});

test('popup and terms are cleared by null or empty text', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  assertOk(await api.put(`/self/${shop.id}/settings/popup`, { message: 'hello' }));
  assert.equal(assertOk(await api.put(`/self/${shop.id}/settings/popup`, { message: '' })).popup, null);
  assertOk(await api.put(`/self/${shop.id}/settings/popup`, { message: 'hello' }));
  assert.equal(assertOk(await api.put(`/self/${shop.id}/settings/popup`, { message: null })).popup, null);
  assertOk(await api.put(`/self/${shop.id}/settings/terms`, { terms: 'T&C' }));
  assert.equal(assertOk(await api.put(`/self/${shop.id}/settings/terms`, { terms: null })).terms, null);
});

test('currencies follow ISO 4217, with unknown fields ignored', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  for (const currency of ['JPY', 'KWD', 'GBP', 'XOF']) {
    assert.equal(
      assertOk(await api.put(`/self/${shop.id}/settings/currency`, { currency, extra: 'ignored' })).currency,
      currency,
    );
  }
});

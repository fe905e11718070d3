import assert from 'node:assert/strict';
import { test } from 'node:test';
import { owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { buildWithProviders } from '../helpers/payment-providers.js';

/** The providers this server has no adapter for: they can be configured, never enabled. */
const UNSUPPORTED = ['virtual-payments', 'cardreader'];

test('every provider can be configured, every supported one enabled; secrets come back masked', async (t) => {
  // blockVpn can be turned on only where the server has VPN ranges.
  const { app } = await buildWithProviders(t, { VPN_RANGES_FILE: 'test/fixtures/vpn-ranges.txt' });
  const api = await owner(app);
  const shop = await createShop(api);
  const bodies: Record<string, object> = {
    cryptocommerce: { apiKey: 'cc_live_abcdef1234', webhookSecret: 'whsec_zyxw9876' },
    'virtual-payments': { privateKey: 'priv-abcdefgh-5678', publicKey: 'pub-key-1', receiveCurrency: 'USDT' },
    tipjar: { handle: 'my.jar' },
    balance: {},
    cardconnect: { secretKey: 'sk_test_00001111', webhookSecret: 'whsec_22223333' },
    walletemail: { email: 'pay@example.com' },
    mobilecash: { cashtag: '$shopkeys', email: 'cash@example.com' },
    'wallet-ff': { email: 'ff@example.com' },
    cardreader: { terminalId: 'TERM-01', apiKey: 'cr_key_99998888' },
  };
  for (const [provider, body] of Object.entries(bodies)) {
    // The providers without an adapter are configured but cannot be enabled (issue 23).
    const supported = !UNSUPPORTED.includes(provider);
    const view = assertOk(
      await api.put(`/self/${shop.id}/settings/payments/${provider}`, {
        enabled: supported,
        gatewayRules: { blockVpn: true },
        ...body,
      }),
    );
    assert.equal(view.enabled, supported, provider);
    assert.equal(view.configured, true, provider);
    assert.deepEqual(view.gatewayRules, { blockVpn: true });
  }
  const { payments } = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.equal(payments.cryptocommerce.apiKey, '••••1234');
  assert.equal(payments.cryptocommerce.webhookSecret, '••••9876');
  assert.equal(payments['virtual-payments'].privateKey, '••••5678');
  assert.equal(payments['virtual-payments'].publicKey, 'pub-key-1', 'public fields are shown');
  assert.equal(payments['virtual-payments'].receiveCurrency, 'USDT');
  assert.equal(payments.cardconnect.secretKey, '••••1111');
  assert.equal(payments.cardreader.apiKey, '••••8888');
  assert.equal(payments.cardreader.terminalId, 'TERM-01');
  assert.equal(payments.mobilecash.cashtag, '$shopkeys');
  assert.equal(payments.walletemail.email, 'pay@example.com');
  const text = JSON.stringify(payments);
  for (const secret of [
    'cc_live_abcdef1234',
    'whsec_zyxw9876',
    'priv-abcdefgh-5678',
    'sk_test_00001111',
    'cr_key_99998888',
  ]) {
    assert.ok(!text.includes(secret), `${secret} must never be returned`);
  }
});

test('secret fields are encrypted at rest', async (t) => {
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  assertOk(
    await api.put(`/self/${shop.id}/settings/payments/cardconnect`, {
      secretKey: 'sk_live_supersecret',
      webhookSecret: 'whsec_alsosecret',
    }),
  );
  const row = await app.db.kysely
    .selectFrom('payment_settings')
    .selectAll()
    .where('shop_id', '=', shop.id)
    .executeTakeFirstOrThrow();
  const stored = JSON.stringify(row);
  assert.ok(!stored.includes('supersecret') && !stored.includes('alsosecret'));
  assert.match(row.secret_fields ?? '', /^v1\./);
  assert.deepEqual(JSON.parse(app.secrets.open(row.secret_fields!)), {
    secretKey: 'sk_live_supersecret',
    webhookSecret: 'whsec_alsosecret',
  });
});

test('updates are partial: omitted fields keep their value, null clears one', async (t) => {
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const url = `/self/${shop.id}/settings/payments/cryptocommerce`;
  assertOk(await api.put(url, { enabled: true, apiKey: 'key-aaaa-1111', webhookSecret: 'sec-bbbb-2222' }));
  let view = assertOk(await api.put(url, { enabled: false }));
  assert.equal(view.enabled, false);
  assert.equal(view.apiKey, '••••1111', 'secret kept when omitted');
  view = assertOk(await api.put(url, { apiKey: 'key-cccc-3333' }));
  assert.equal(view.apiKey, '••••3333');
  assert.equal(view.webhookSecret, '••••2222');
  view = assertOk(await api.put(url, { webhookSecret: null }));
  assert.equal(view.webhookSecret, null);
  assert.equal(view.configured, false);
});

test('a provider cannot be enabled before its required fields are set', async (t) => {
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const res = await api.put(`/self/${shop.id}/settings/payments/cryptocommerce`, {
    enabled: true,
    apiKey: 'only-the-key',
  });
  assertError(res, 422, 'unprocessable');
  assert.deepEqual(res.body.errors, ['webhookSecret: is required to enable cryptocommerce']);
  const { payments } = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.deepEqual(payments.cryptocommerce, {
    enabled: false,
    configured: false,
    secretsUnreadable: false,
    gatewayRules: { blockVpn: false },
    apiKey: null,
    webhookSecret: null,
  });

  // Clearing a required field of an enabled provider is refused too.
  assertOk(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  assertError(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { handle: null }), 422, 'unprocessable');
  assert.equal(assertOk(await api.get(`/self/${shop.id}/settings`)).payments.tipjar.handle, 'jar');
});

test('payment fields are validated; bad bodies change nothing', async (t) => {
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const before = assertOk(await api.get(`/self/${shop.id}/settings`));
  const bad: [string, object, string][] = [
    ['walletemail', { email: 'not-an-email' }, 'email'],
    ['wallet-ff', { email: 42 }, 'email'],
    ['mobilecash', { cashtag: 'has spaces' }, 'cashtag'],
    ['tipjar', { handle: '' }, 'handle'],
    ['virtual-payments', { receiveCurrency: 'btc' }, 'receiveCurrency'],
    ['cryptocommerce', { enabled: 'yes' }, 'enabled'],
    ['cryptocommerce', { gatewayRules: { blockVpn: 'no' } }, 'gatewayRules.blockVpn'],
    ['cardreader', { apiKey: 'x'.repeat(513) }, 'apiKey'],
    ['cardconnect', { secretKey: '' }, 'secretKey'],
  ];
  for (const [provider, body, field] of bad) {
    const res = await api.put(`/self/${shop.id}/settings/payments/${provider}`, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      `${provider}: ${res.body.errors}`,
    );
  }
  assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)), before);
});

test("GET → PUT round trip: every provider's view sent back unchanged is a 200 that changes nothing", async (t) => {
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const bodies: Record<string, object> = {
    cryptocommerce: { apiKey: 'cc_live_abcdef1234', webhookSecret: 'whsec_zyxw9876' },
    'virtual-payments': { privateKey: 'priv-abcdefgh-5678', publicKey: 'pub-key-1', receiveCurrency: 'USDT' },
    tipjar: { handle: 'my.jar' },
    balance: {},
    cardconnect: { secretKey: 'sk_test_00001111', webhookSecret: 'short' },
    walletemail: { email: 'pay@example.com' },
    mobilecash: { cashtag: '$shopkeys' },
    'wallet-ff': { email: 'ff@example.com' },
    cardreader: { terminalId: 'TERM-01', apiKey: 'cr_key_99998888' },
  };
  for (const [provider, body] of Object.entries(bodies))
    assertOk(
      await api.put(`/self/${shop.id}/settings/payments/${provider}`, {
        enabled: !UNSUPPORTED.includes(provider),
        ...body,
      }),
    );
  // One provider left unconfigured: its view (nulls) goes back too.
  assertOk(await api.put(`/self/${shop.id}/settings/payments/wallet-ff`, { enabled: false, email: null }));
  const rows = () =>
    app.db.kysely
      .selectFrom('payment_settings')
      .selectAll()
      .where('shop_id', '=', shop.id)
      .orderBy('provider')
      .execute();
  const opened = async () =>
    (await rows()).map((r) => ({
      ...r,
      updated_at: 0,
      secret_fields: r.secret_fields && JSON.parse(app.secrets.open(r.secret_fields)),
    }));
  const before = await rows();
  const secretsBefore = await opened();
  const { payments } = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.equal(payments.cardconnect.webhookSecret, '••••', 'a short secret shows no characters');

  for (const provider of Object.keys(bodies)) {
    const answer = await api.put(`/self/${shop.id}/settings/payments/${provider}`, payments[provider]);
    assert.deepEqual(assertOk(answer), payments[provider], provider);
  }
  assert.deepEqual(await opened(), secretsBefore, 'every stored secret is what it was');
  assert.deepEqual(
    (await rows()).map((r) => r.secret_fields),
    before.map((r) => r.secret_fields),
    'and stays sealed as it was',
  );
  // null for the switches means what leaving them out means: keep them.
  for (const provider of Object.keys(bodies)) {
    assert.deepEqual(
      assertOk(await api.put(`/self/${shop.id}/settings/payments/${provider}`, { enabled: null, gatewayRules: null })),
      payments[provider],
      provider,
    );
  }
  assert.deepEqual(
    assertOk(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { gatewayRules: { blockVpn: null } })),
    payments.tipjar,
  );
  assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)).payments, payments);
});

test('a masked value that is not the current mask is a 400 naming the field, and changes nothing', async (t) => {
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const url = `/self/${shop.id}/settings/payments/cryptocommerce`;
  assertOk(await api.put(url, { apiKey: 'cc_live_abcdef1234', webhookSecret: 'whsec_zyxw9876' }));
  const before = assertOk(await api.get(`/self/${shop.id}/settings`)).payments;
  for (const body of [
    { apiKey: '••••9999' },
    { apiKey: '••••' },
    { apiKey: '•x', webhookSecret: '••••9876' },
    { webhookSecret: '••••unreadable' },
  ]) {
    const res = await api.put(url, body);
    assertError(res, 400, 'validation_error');
    const field = Object.keys(body).find((k) => (body as Record<string, string>)[k] !== before.cryptocommerce[k])!;
    assert.deepEqual(
      res.body.errors.map((e: string) => e.split(':')[0]),
      [field],
      JSON.stringify(body),
    );
  }
  // A value that does not start with the mask character is a secret like any other.
  assert.equal(assertOk(await api.put(url, { apiKey: 'x••••1234' })).apiKey, '••••1234');
  assert.deepEqual(
    JSON.parse(
      app.secrets.open(
        (
          await app.db.kysely
            .selectFrom('payment_settings')
            .select('secret_fields')
            .where('shop_id', '=', shop.id)
            .executeTakeFirstOrThrow()
        ).secret_fields!,
      ),
    ),
    {
      apiKey: 'x••••1234',
      webhookSecret: 'whsec_zyxw9876',
    },
  );
});

test('every payment provider has its settings route (src/modules/settings/owner.routes.ts writes each path out)', async (t) => {
  const { paymentProviderNames } = await import('../../src/modules/shops/payments.js');
  const { app } = await buildWithProviders(t);
  for (const provider of paymentProviderNames) {
    assert.ok(
      app.hasRoute({ method: 'PUT', url: `/self/:shopId/settings/payments/${provider}` }),
      `PUT /self/:shopId/settings/payments/${provider} is missing`,
    );
  }
});

test('virtual-payments and cardreader cannot be enabled (422 "not supported by this server yet"), and the refusal changes nothing', async (t) => {
  const { app } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const bodies: Record<string, object> = {
    'virtual-payments': { privateKey: 'priv-abcdefgh-5678', publicKey: 'pub-key-1', receiveCurrency: 'USDT' },
    cardreader: { terminalId: 'TERM-01', apiKey: 'cr_key_99998888' },
  };
  for (const [provider, body] of Object.entries(bodies)) {
    const path = `/self/${shop.id}/settings/payments/${provider}`;
    const kept = assertOk(await api.put(path, { enabled: false, ...body }));
    assert.equal(kept.configured, true, 'its settings can be kept');
    const refused = await api.put(path, { enabled: true });
    assertError(refused, 422, 'unprocessable');
    assert.match(refused.body.message, /not supported by this server yet/);
    assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)).payments[provider], kept, 'nothing changed');
    // So no checkout can pick it.
    const checkout = await api.post(`/v2/public/shops/${shop.id}/invoices`, {
      customerEmail: 'buyer@example.com',
      gateway: provider,
      parts: [{ productId: 1, productVariantId: 1, quantity: 1 }],
    });
    assert.ok([400, 422].includes(checkout.status), JSON.stringify(checkout.body));
  }
});

test('a new Stripe secret key is checked with Stripe before it is stored; a refused or unchecked one changes nothing', async (t) => {
  const { app, double } = await buildWithProviders(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const url = `/self/${shop.id}/settings/payments/cardconnect`;
  const asked = () => double.requests.filter((r) => r.method === 'GET' && r.path === '/v1/checkout/sessions').length;

  const saved = assertOk(
    await api.put(url, { enabled: true, secretKey: 'sk_test_good1234', webhookSecret: 'whsec_1' }),
  );
  assert.equal(saved.secretKey, '••••1234');
  assert.equal(asked(), 1, 'Stripe was asked once');
  assert.equal(
    double.requests.find((r) => r.path === '/v1/checkout/sessions')?.headers.authorization,
    'Bearer sk_test_good1234',
    'with the new key',
  );
  const before = assertOk(await api.get(`/self/${shop.id}/settings`)).payments.cardconnect;

  // A key Stripe refuses: a 422 naming the field, with Stripe's reason.
  const refused = await api.put(url, { secretKey: 'sk_live_revoked9999' });
  assertError(refused, 422, 'unprocessable');
  assert.match(refused.body.errors[0], /^secretKey: .*Invalid API Key provided/);
  // A publishable key is refused without asking Stripe.
  const publishable = await api.put(url, { secretKey: 'pk_live_abcdef1234' });
  assertError(publishable, 422, 'unprocessable');
  assert.match(publishable.body.errors[0], /^secretKey: a Stripe secret key starts with sk_live_/);
  assert.equal(asked(), 2);
  assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)).payments.cardconnect, before);

  // What does not give a new key asks nothing: the masked value sent back, another field, a switch.
  const calls = double.requests.length;
  assertOk(await api.put(url, { secretKey: '••••1234', webhookSecret: 'whsec_2' }));
  assertOk(await api.put(url, { enabled: false }));
  assert.equal(double.requests.length, calls);
  // A restricted key is a key too.
  const restricted = assertOk(await api.put(url, { secretKey: 'rk_test_restricted42' }));
  assert.equal(restricted.secretKey, '••••ed42');

  // Stripe does not answer (its library tries again; every try fails): a 502, and nothing is saved.
  double.failNext('/v1/checkout/sessions', 500, 'Stripe is down', 10);
  const down = await api.put(url, { secretKey: 'sk_live_other5678' });
  assertError(down, 502, 'payment_provider_error');
  assert.match(down.body.message, /Stripe did not answer/);
  assert.deepEqual(assertOk(await api.get(`/self/${shop.id}/settings`)).payments.cardconnect, restricted);
});

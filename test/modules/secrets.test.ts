import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/app.js';
import { type Config, ConfigError } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { UNREADABLE_SIGNING_SECRET } from '../../src/modules/webhooks/service.js';
import { secretBoxFromKey } from '../../src/security/secret-box.js';
import { client, freshConfig, onEnd, owner, processEnv } from '../helpers/build.js';
import { cli } from '../helpers/cli.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { webhookReceiver as receiver } from '../helpers/webhook-receiver.js';

const OLD = 'test-secret-key-0123456789'; // what processEnv gives the CLI
const NEW = 'a-brand-new-secret-key-42';

async function start(
  t: TestContext,
  config: Config,
  logger: false | { level: string; stream: Writable } = false,
): Promise<FastifyInstance> {
  const app = await buildApp({ config, logger });
  onEnd(t, () => app.close());
  return app;
}

/** The sealed values as stored, to show what a call changed or left alone. */
async function sealedRows(config: Config) {
  const db = openDatabase(config.database);
  try {
    const payments = await db.kysely
      .selectFrom('payment_settings')
      .select(['shop_id', 'provider', 'secret_fields'])
      .orderBy('provider')
      .execute();
    const webhooks = await db.kysely.selectFrom('webhook_endpoints').select(['id', 'secret']).orderBy('id').execute();
    return { payments, webhooks };
  } finally {
    await db.destroy();
  }
}

/**
 * A database whose secrets were sealed with `config.secretKey`: cryptocommerce credentials and
 * a webhook endpoint's signing secret (tipjar and balance, enabled too, hold none).
 */
async function sealedDatabase(t: TestContext, config: Config) {
  const sink = await receiver(t);
  const app = await buildApp({ config, logger: false });
  const api = await owner(app);
  const shop = await sellingShop(api);
  assertOk(
    await api.put(`/self/${shop.shopId}/settings/payments/cryptocommerce`, {
      enabled: true,
      apiKey: 'cc_live_key_1234',
      webhookSecret: 'whsec_old_5678',
    }),
  );
  const hook = assertOk(
    await api.post(`/self/${shop.shopId}/webhooks`, { url: sink.url, events: ['invoice.created'] }),
  );
  await app.close();
  return {
    key: api.key,
    ...shop,
    hook: hook as { id: number; secret: string },
    sink,
    sealed: await sealedRows(config),
  };
}

test('a server whose key cannot open the stored secrets refuses to start, naming the key, the secrets and the way out', async (t) => {
  const config = await freshConfig(t, { SECRET_KEY: OLD });
  const { shopId, hook } = await sealedDatabase(t, config);

  const refused = await buildApp({ config: { ...config, secretKey: NEW }, logger: false }).then(
    (app) => app.close().then(() => undefined),
    (err: unknown) => err,
  );
  assert.ok(refused instanceof ConfigError, `expected a ConfigError, got ${String(refused)}`);
  const message = (refused as Error).message;
  assert.match(message, /The key in use \(SECRET_KEY\) cannot open 2 of the 2 secrets/);
  assert.ok(message.includes(`shop ${shopId}: cryptocommerce payment settings`), message);
  assert.ok(message.includes(`shop ${shopId}: webhook ${hook.id} signing secret`), message);
  assert.match(message, /DATA_DIR\/secret\.key/);
  assert.match(message, /shopd secrets rotate --from-key-file/);
  assert.match(message, /ALLOW_UNREADABLE_SECRETS=true/);

  // Without SECRET_KEY a new secret.key is generated, and the message says so.
  const generated = await buildApp({ config: { ...config, secretKey: undefined }, logger: false }).then(
    (app) => app.close().then(() => undefined),
    (err: unknown) => err,
  );
  assert.match(
    String((generated as Error).message),
    /The key in use \(DATA_DIR\/secret\.key \(.*secret\.key, generated now\)\) cannot open 2 of the 2/,
  );

  // The key that sealed them starts as before.
  const app = await start(t, config);
  assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
});

test('ALLOW_UNREADABLE_SECRETS=true starts with an error in the log; reads show unreadable secrets instead of failing', async (t) => {
  const config = await freshConfig(t, { SECRET_KEY: OLD });
  const { key, shopId, sealed } = await sealedDatabase(t, config);
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const app = await start(t, { ...config, secretKey: NEW, allowUnreadableSecrets: true }, { level: 'info', stream });
  const errors = lines
    .map((l) => JSON.parse(l) as { level: number; msg: string; unreadable?: number })
    .filter((l) => l.level === 50);
  assert.equal(errors.length, 1, lines.join('\n'));
  assert.equal(errors[0]!.unreadable, 2);
  assert.match(errors[0]!.msg, /cannot open 2 of the 2 secrets/);

  const { payments } = assertOk(await client(app, key).get(`/self/${shopId}/settings`));
  assert.deepEqual(payments.cryptocommerce, {
    enabled: true,
    configured: false,
    secretsUnreadable: true,
    gatewayRules: { blockVpn: false },
    apiKey: '••••unreadable',
    webhookSecret: '••••unreadable',
  });
  assert.equal(payments.tipjar.configured, true, 'providers without secrets are unaffected');
  assert.equal(payments.tipjar.secretsUnreadable, false);
  assert.deepEqual(await sealedRows(config), sealed, 'a read changes nothing');
});

test('unreadable payment secrets: kept sealed as they are, replaced all at once, never in part', async (t) => {
  const config = await freshConfig(t, { SECRET_KEY: OLD });
  const { key, shopId, sealed } = await sealedDatabase(t, config);
  const url = `/self/${shopId}/settings/payments/cryptocommerce`;
  const stored = async () =>
    (await sealedRows(config)).payments.find((p) => p.provider === 'cryptocommerce')!.secret_fields;
  const original = await stored();
  let app = await start(t, { ...config, secretKey: NEW, allowUnreadableSecrets: true });
  let api = client(app, key);

  // The view read back unchanged, and updates that leave the secrets alone, keep them sealed as they are.
  const view = assertOk(await api.get(`/self/${shopId}/settings`)).payments.cryptocommerce;
  assert.deepEqual(assertOk(await api.put(url, view)), view);
  assert.equal(await stored(), original);
  const disabled = assertOk(await api.put(url, { enabled: false, gatewayRules: { blockVpn: false } }));
  assert.equal(disabled.enabled, false);
  assert.equal(disabled.secretsUnreadable, true);
  assert.equal(await stored(), original);

  // Part of them cannot be replaced (the rest cannot be read), nor can the provider be enabled on them.
  const partial = await api.put(url, { apiKey: 'cc_new_key_9999' });
  assertError(partial, 409, 'conflict');
  assert.deepEqual(
    partial.body.errors.map((e: string) => e.split(':')[0]),
    ['webhookSecret'],
  );
  const enabling = await api.put(url, { enabled: true });
  assertError(enabling, 409, 'conflict');
  assert.deepEqual(
    enabling.body.errors.map((e: string) => e.split(':')[0]),
    ['apiKey', 'webhookSecret'],
  );
  const masked = await api.put(url, { apiKey: '••••1234' });
  assertError(masked, 400, 'validation_error');
  assert.match(masked.body.errors[0], /^apiKey: is a masked value/);
  assert.equal(await stored(), original, 'refused updates change nothing');

  // With the old key back, the kept secrets work again.
  await app.close();
  app = await start(t, config);
  assert.deepEqual(assertOk(await client(app, key).get(`/self/${shopId}/settings`)).payments.cryptocommerce, {
    enabled: false,
    configured: true,
    secretsUnreadable: false,
    gatewayRules: { blockVpn: false },
    apiKey: '••••1234',
    webhookSecret: '••••5678',
  });
  await app.close();

  // Given anew, all of them, they are sealed with the server's key.
  app = await start(t, { ...config, secretKey: NEW, allowUnreadableSecrets: true });
  api = client(app, key);
  const replaced = assertOk(
    await api.put(url, { enabled: true, apiKey: 'cc_new_key_9999', webhookSecret: 'whsec_new_0000' }),
  );
  assert.deepEqual(replaced, {
    enabled: true,
    configured: true,
    secretsUnreadable: false,
    gatewayRules: { blockVpn: false },
    apiKey: '••••9999',
    webhookSecret: '••••0000',
  });
  assert.deepEqual(JSON.parse(secretBoxFromKey(Buffer.from(NEW), 'test').open((await stored())!)), {
    apiKey: 'cc_new_key_9999',
    webhookSecret: 'whsec_new_0000',
  });
  assert.deepEqual((await sealedRows(config)).webhooks, sealed.webhooks, 'other secrets are untouched');
});

test('a webhook whose signing secret cannot be opened: the test and deliveries fail with a recorded error, the worker goes on', async (t) => {
  const config = await freshConfig(t, { SECRET_KEY: OLD });
  const { key, shopId, productId, keysVariant, hook, sink } = await sealedDatabase(t, config);
  const app = await start(t, { ...config, secretKey: NEW, allowUnreadableSecrets: true });
  const api = client(app, key);

  const ping = assertOk(await api.post(`/self/${shopId}/webhooks/${hook.id}/test`));
  assert.equal(ping.ok, false);
  assert.equal(ping.error, UNREADABLE_SIGNING_SECRET);

  assertOk(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      customerEmail: 'buyer@example.com',
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
    }),
  );
  const now = Date.now();
  assert.equal(await app.webhookWorker.runOnce(now), 0, 'the pass ends normally, nothing delivered');
  assert.equal(sink.received.length, 0, 'nothing unsigned ever leaves');
  const attempts = assertOk(await api.get(`/self/${shopId}/webhooks/${hook.id}/deliveries`)).items;
  assert.deepEqual(
    attempts.map((a: { eventType: string; error: string }) => [a.eventType, a.error]),
    [
      ['invoice.created', UNREADABLE_SIGNING_SECRET],
      ['ping', UNREADABLE_SIGNING_SECRET],
    ],
  );
  const delivery = await app.db.kysely
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', hook.id)
    .where('status', '!=', 'failed')
    .executeTakeFirstOrThrow();
  assert.equal(delivery.status, 'pending', 'retried later, when the key may be back');
  assert.ok(delivery.next_attempt_at > now);
});

test('shopd secrets rotate re-encrypts every secret from the old key to the configured one, or changes nothing', async (t) => {
  const { config, env } = await processEnv(t);
  assert.equal(config.secretKey, OLD);
  const { key, shopId, hook, sink, sealed } = await sealedDatabase(t, config);

  const usage = await cli(env, 'secrets', 'rotate');
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /secrets rotate needs one of --from-key-file <file> or --from-env <VARIABLE>/);
  const unset = await cli({ ...env, SECRET_KEY: NEW }, 'secrets', 'rotate', '--from-env', 'SHOPD_TEST_UNSET_KEY');
  assert.equal(unset.code, 1);
  assert.match(unset.stderr, /SHOPD_TEST_UNSET_KEY is not set/);
  const same = await cli({ ...env, OLD_KEY: OLD }, 'secrets', 'rotate', '--from-env', 'OLD_KEY');
  assert.equal(same.code, 1);
  assert.match(
    same.stderr,
    /Nothing was changed: the old key \(--from-env OLD_KEY\) is the configured key \(SECRET_KEY\)/,
  );
  const wrong = await cli(
    { ...env, SECRET_KEY: NEW, OLD_KEY: 'not-the-key-that-sealed-them' },
    'secrets',
    'rotate',
    '--from-env',
    'OLD_KEY',
  );
  assert.equal(wrong.code, 1);
  assert.match(
    wrong.stderr,
    /Nothing was changed: the old key \(--from-env OLD_KEY\) cannot open 2 of the 2 stored secrets/,
  );
  assert.deepEqual(await sealedRows(config), sealed);

  // One secret sealed with a third key: the old key opens all but it, and nothing is changed.
  const db = openDatabase(config.database);
  const stray = secretBoxFromKey(Buffer.from('a-third-key-nobody-has-0000'), 'test').seal('whsec_c3RyYXk=');
  await db.kysely.updateTable('webhook_endpoints').set({ secret: stray }).where('id', '=', hook.id).execute();
  const mixed = await cli({ ...env, SECRET_KEY: NEW, OLD_KEY: OLD }, 'secrets', 'rotate', '--from-env', 'OLD_KEY');
  assert.equal(mixed.code, 1);
  assert.match(mixed.stderr, /cannot open 1 of the 2 stored secrets:\n {2}- shop \d+: webhook \d+ signing secret/);
  assert.deepEqual((await sealedRows(config)).payments, sealed.payments, 'not even the secrets it could open');
  await db.kysely
    .updateTable('webhook_endpoints')
    .set({ secret: sealed.webhooks[0]!.secret })
    .where('id', '=', hook.id)
    .execute();
  await db.destroy();

  const rotated = await cli({ ...env, SECRET_KEY: NEW, OLD_KEY: OLD }, 'secrets', 'rotate', '--from-env', 'OLD_KEY');
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(
    rotated.stdout,
    /^Re-encrypted 2 secrets \(1 payment settings, 1 webhook signing secrets, 0 license signing keys\) from the old key \(--from-env OLD_KEY\) to the configured key \(SECRET_KEY\)/,
  );

  // The new key opens everything: the server starts, reads them, and signs with the same secret.
  const app = await start(t, { ...config, secretKey: NEW });
  const api = client(app, key);
  const { payments } = assertOk(await api.get(`/self/${shopId}/settings`));
  assert.equal(payments.cryptocommerce.apiKey, '••••1234');
  assert.equal(payments.cryptocommerce.secretsUnreadable, false);
  assert.equal(assertOk(await api.post(`/self/${shopId}/webhooks/${hook.id}/test`)).ok, true);
  const [received] = sink.received;
  assert.ok(new Webhook(hook.secret).verify(received!.body, received!.headers as Record<string, string>));
  await app.close();
  await assert.rejects(buildApp({ config, logger: false }), ConfigError, 'the old key opens nothing any more');
});

test('shopd secrets rotate --from-key-file moves a generated secret.key to a fresh one', async (t) => {
  const { config, env } = await processEnv(t);
  const generatedConfig = { ...config, secretKey: undefined };
  const { key, shopId } = await sealedDatabase(t, generatedConfig);
  const keyFile = join(config.dataDir, 'secret.key');
  const oldFile = `${keyFile}.old`;
  renameSync(keyFile, oldFile);

  const rotated = await cli({ ...env, SECRET_KEY: '' }, 'secrets', 'rotate', '--from-key-file', oldFile);
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(
    rotated.stdout,
    /Re-encrypted 2 secrets .* from the old key \(--from-key-file .*secret\.key\.old\) to the configured key \(DATA_DIR\/secret\.key \(.*, generated now\)\)/,
  );
  assert.ok(existsSync(keyFile));
  assert.notEqual(readFileSync(keyFile, 'utf8'), readFileSync(oldFile, 'utf8'));
  const app = await start(t, generatedConfig);
  assert.equal(
    assertOk(await client(app, key).get(`/self/${shopId}/settings`)).payments.cryptocommerce.webhookSecret,
    '••••5678',
  );

  const missing = await cli(
    { ...env, SECRET_KEY: '' },
    'secrets',
    'rotate',
    '--from-key-file',
    join(config.dataDir, 'nope.key'),
  );
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--from-key-file: cannot read .*nope\.key/);
});

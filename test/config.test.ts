import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, parseDatabaseUrl } from '../src/config.js';

test('defaults: SQLite under ./data, port 3000 on 127.0.0.1', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.dataDir, resolve('./data'));
  assert.deepEqual(config.database, { dialect: 'sqlite', file: resolve('./data/shopd.sqlite') });
  assert.equal(config.bodyLimitBytes, 1024 * 1024);
  assert.equal(config.uploadLimitBytes, 5 * 1024 * 1024);
  assert.ok(Object.isFrozen(config));
});

test('DATABASE_URL selects the engine', () => {
  assert.deepEqual(parseDatabaseUrl('postgres://u@h/db', '/d'), { dialect: 'postgres', url: 'postgres://u@h/db' });
  assert.deepEqual(parseDatabaseUrl('postgresql://u@h/db', '/d'), { dialect: 'postgres', url: 'postgresql://u@h/db' });
  assert.deepEqual(parseDatabaseUrl('sqlite:/tmp/x.db', '/d'), { dialect: 'sqlite', file: '/tmp/x.db' });
  assert.throws(() => parseDatabaseUrl('mysql://x', '/d'), ConfigError);
});

test('bad values are refused at boot with every problem named', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', SECRET_KEY: 'short' }),
    (err: Error) =>
      err instanceof ConfigError &&
      /PORT/.test(err.message) &&
      /LOG_LEVEL/.test(err.message) &&
      /SECRET_KEY/.test(err.message),
  );
  assert.equal(loadConfig({ PORT: '8080', TRUST_PROXY: 'true' }).port, 8080);
});

test("TRUST_PROXY: false, true, a number of hops, or the proxies' addresses and ranges", () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }).trustProxy, [
    '127.0.0.1',
    '10.0.0.0/8',
    '::1',
  ]);
  for (const bad of ['yes', '10.0.0.0/33', 'proxy.example.com', '1.2.3.4/8/1']) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: bad }),
      (err: Error) => err instanceof ConfigError && /TRUST_PROXY/.test(err.message),
      bad,
    );
  }
});

test('METRICS_TOKEN: unset turns metrics off; shorter than 16 characters or with spaces is refused, never echoed', () => {
  assert.equal(loadConfig({}).metricsToken, undefined);
  assert.equal(loadConfig({ METRICS_TOKEN: '' }).metricsToken, undefined, 'empty is unset');
  assert.equal(loadConfig({ METRICS_TOKEN: 'a-metrics-token-0123' }).metricsToken, 'a-metrics-token-0123');
  assert.equal(loadConfig({ METRICS_TOKEN: '0123456789abcdef' }).metricsToken, '0123456789abcdef', '16 is enough');
  for (const bad of [
    '0123456789abcde',
    'short',
    'a metrics token 0123',
    'metrics-token-0123\t',
    'métrics-token-0123',
  ]) {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: bad }),
      (err: Error) =>
        err instanceof ConfigError && /^\s*METRICS_TOKEN: /m.test(err.message) && !err.message.includes(bad),
      JSON.stringify(bad),
    );
  }
});

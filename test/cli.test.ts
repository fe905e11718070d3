import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../src/app.js';
import { onEnd, processEnv } from './helpers/build.js';
import { cli } from './helpers/cli.js';

test('keys create / list / revoke, and the key works on the API', async (t) => {
  const { config, env } = await processEnv(t);
  const created = await cli(env, 'keys', 'create', '--email', 'Owner@Example.com');
  assert.equal(created.code, 0, created.stderr);
  const key = created.stdout.trim().split('\n').at(-1)!;
  assert.match(key, /^shopd_[A-Za-z0-9_-]{43}$/, 'the last line is the key alone');

  const readOnly = await cli(env, 'keys', 'create', '--email', 'owner@example.com', '--scope', 'read');
  assert.match(readOnly.stdout, /scopes: read\)/);

  const list = await cli(env, 'keys', 'list', '--email', 'owner@example.com');
  assert.equal(list.code, 0);
  const lines = list.stdout.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.ok(!list.stdout.includes(key), 'keys are never listed');
  assert.match(lines[0]!, /^1\tshopd_\S+…\tread,write\t\S+\tactive$/);

  const app = await buildApp({ config, logger: false });
  onEnd(t, () => app.close());
  const ok = await app.inject({ method: 'GET', url: '/self/shops', headers: { authorization: `Bearer ${key}` } });
  assert.equal(ok.statusCode, 200);

  const revoked = await cli(env, 'keys', 'revoke', '1');
  assert.equal(revoked.code, 0, revoked.stderr);
  const after = await app.inject({ method: 'GET', url: '/self/shops', headers: { authorization: `Bearer ${key}` } });
  assert.equal(after.statusCode, 401);
  const again = await cli(env, 'keys', 'revoke', '1');
  assert.equal(again.code, 1);
  assert.match(again.stderr, /not found/);
});

test('migrate, usage errors and bad input exit non-zero with a message', async (t) => {
  const { env } = await processEnv(t);
  const migrate = await cli(env, 'migrate');
  assert.equal(migrate.code, 0, migrate.stderr);
  assert.match(migrate.stdout, /^applied: 0001-foundation(, [\w-]+)*$/m);
  assert.match((await cli(env, 'migrate')).stdout, /up to date/);
  const unknown = await cli(env, 'frobnicate');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /unknown command/);
  const noEmail = await cli(env, 'keys', 'create');
  assert.equal(noEmail.code, 1);
  const badEmail = await cli(env, 'keys', 'create', '--email', 'nope');
  assert.equal(badEmail.code, 1);
  assert.match(badEmail.stderr, /email: must be an e-mail address/);
  const badScope = await cli(env, 'keys', 'create', '--email', 'a@b.co', '--scope', 'admin');
  assert.equal(badScope.code, 1);
  const help = await cli(env, '--help');
  assert.match(help.stdout, /keys create/);
});

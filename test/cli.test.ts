import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { buildApp } from '../src/app.js';
import { onEnd, owner, processEnv } from './helpers/build.js';
import { type CliResult, cli, compiledCli, resultOf } from './helpers/cli.js';
import { assertOk, sellingShop } from './helpers/factories.js';

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
  // An empty database: `migrate` applies every migration from the first.
  const { env } = await processEnv(t, { empty: true });
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
  assert.match(help.stdout, /users set-password --email/);
  assert.match(help.stdout, /users setup-link --email/);
});

/** The CLI as `cli` runs it (the compiled one, helpers/cli.ts), with `input` written to its stdin (a pipe, not a terminal). */
function cliWithInput(env: Record<string, string>, input: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [compiledCli, ...args],
      { env: { ...process.env, ...env } },
      (err, stdout, stderr) => resolve(resultOf(err, stdout, stderr)),
    );
    child.stdin!.end(input);
  });
}

test('users set-password reads the first line of stdin; users setup-link prints a one-time link that sets it', async (t) => {
  const { config, env } = await processEnv(t);
  assert.equal((await cli(env, 'keys', 'create', '--email', 'owner@example.com')).code, 0);
  const app = await buildApp({ config, logger: false });
  onEnd(t, () => app.close());
  const signIn = (password: string) =>
    app.inject({ method: 'POST', url: '/self/session', payload: { email: 'owner@example.com', password } });

  const set = await cliWithInput(
    env,
    'a long enough password\nnot this line\n',
    'users',
    'set-password',
    '--email',
    'Owner@Example.com',
  );
  assert.equal(set.code, 0, set.stderr);
  assert.equal(set.stdout.trim(), 'password set for owner@example.com');
  assert.ok(!set.stdout.includes('a long enough password'), 'the password is not echoed');
  assert.equal((await signIn('a long enough password')).statusCode, 200);
  assert.equal((await signIn('not this line')).statusCode, 401);

  const short = await cliWithInput(env, 'short\n', 'users', 'set-password', '--email', 'owner@example.com');
  assert.equal(short.code, 1);
  assert.match(short.stderr, /password: must be at least 10 characters long/);
  const unknown = await cliWithInput(
    env,
    'a long enough password\n',
    'users',
    'set-password',
    '--email',
    'nobody@example.com',
  );
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Account not found/);
  assert.equal((await cli(env, 'users', 'set-password')).code, 1, 'needs --email');

  const link = await cli(env, 'users', 'setup-link', '--email', 'owner@example.com');
  assert.equal(link.code, 0, link.stderr);
  const url = link.stdout.trim().split('\n').at(-1)!;
  assert.equal(
    url,
    `${config.publicUrl}/admin/setup#token=${/#token=([A-Za-z0-9_-]{43})$/.exec(url)?.[1]}`,
    'the link alone is the last line',
  );
  const token = url.split('#token=')[1]!;
  const setup = (password: string) =>
    app.inject({ method: 'POST', url: '/self/password-setup', payload: { token, password } });
  assert.equal((await setup('set from the link')).statusCode, 200);
  assert.equal((await signIn('set from the link')).statusCode, 200);
  assert.equal((await setup('and once more from it')).statusCode, 404, 'the link works once');
  const noAccount = await cli(env, 'users', 'setup-link', '--email', 'nobody@example.com');
  assert.equal(noAccount.code, 1);
  assert.match(noAccount.stderr, /Account not found/);
});

test("rollups rebuild recomputes a shop's dashboards from its orders", async (t) => {
  const { config, env } = await processEnv(t);
  const app = await buildApp({ config, logger: false });
  onEnd(t, () => app.close());
  const api = await owner(app);
  const shop = await sellingShop(api, { serviceStock: null });
  for (const quantity of [1, 3]) {
    const placed = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: {
        customerEmail: 'buyer@example.com',
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity }],
      },
    });
    assertOk(await api.post(`/self/${shop.shopId}/invoices/${placed.json().data.id}/process`));
  }
  const before = assertOk(await api.get(`/self/${shop.shopId}/dashboard/general`));
  assert.equal(before.productsSold, 4);
  // Rollups lost (say, edited by hand): the dashboards show nothing until the rebuild.
  for (const table of [
    'rollup_totals',
    'rollup_products',
    'rollup_hours',
    'rollup_gateways',
    'rollup_invoice_counts',
  ] as const)
    await app.db.kysely.deleteFrom(table).where('shop_id', '=', shop.shopId).execute();
  assert.equal(assertOk(await api.get(`/self/${shop.shopId}/dashboard/general`)).productsSold, 0);

  const rebuilt = await cli(env, 'rollups', 'rebuild', '--shop', String(shop.shopId));
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  assert.match(rebuilt.stdout, new RegExp(`shop ${shop.shopId}: rollups rebuilt`));
  assert.deepEqual(assertOk(await api.get(`/self/${shop.shopId}/dashboard/general`)), before);

  const all = await cli(env, 'rollups', 'rebuild');
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(assertOk(await api.get(`/self/${shop.shopId}/dashboard/general`)), before);
  const unknown = await cli(env, 'rollups', 'rebuild', '--shop', '9999');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /not found/);
  const bad = await cli(env, 'rollups', 'rebuild', '--shop', 'one');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--shop must be a shop id/);
});

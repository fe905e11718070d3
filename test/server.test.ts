import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { test } from 'node:test';
import { buildApp } from '../src/app.js';
import { engine, onEnd, owner, processEnv } from './helpers/build.js';
import { type CliResult, cli } from './helpers/cli.js';
import { sellingShop } from './helpers/factories.js';
import { endOf, spawnServer, startServer } from './helpers/server-process.js';

/** The first start's password link line: its token, or undefined when there is none. */
function setupTokenOf(output: string): string | undefined {
  const lines = output.split('\n').filter((l) => l.startsWith("Set the owner's password"));
  assert.ok(lines.length <= 1, 'one link at most');
  if (lines.length === 0) return undefined;
  const match =
    /^Set the owner's password \(one-time link, valid 24 h\): (http:\/\/\S+)\/admin\/setup#token=([A-Za-z0-9_-]{43})$/.exec(
      lines[0]!,
    );
  assert.ok(match, lines[0]);
  return match[2];
}

test('first start prints one owner key and a password link; the server answers over HTTP and stops gracefully', async (t) => {
  const { env } = await processEnv(t);
  const first = await startServer(env);
  // A failed assertion must not leave the server running (the test file would never end).
  onEnd(t, () => first.child.kill('SIGKILL'));
  const keyLines = first
    .output()
    .split('\n')
    .filter((l) => l.startsWith('First API key'));
  assert.equal(keyLines.length, 1);
  const key = /(shopd_[A-Za-z0-9_-]{43})$/.exec(keyLines[0]!)![1]!;
  const setupToken = setupTokenOf(first.output());
  assert.ok(setupToken, 'the first start prints the link to set the password');

  // The link sets the first owner's password, once; the owner then signs in to the web admin.
  const post = (path: string, body: unknown) =>
    fetch(`${first.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  assert.equal(
    (await post('/self/password-setup', { token: setupToken, password: 'first owner password' })).status,
    200,
  );
  assert.equal(
    (await post('/self/password-setup', { token: setupToken, password: 'second owner password' })).status,
    404,
  );
  const signedIn = await post('/self/session', { email: 'owner@localhost', password: 'first owner password' });
  assert.equal(signedIn.status, 200);
  assert.match(
    signedIn.headers.get('set-cookie') ?? '',
    /shopd_session=[A-Za-z0-9_-]{43}; Path=\/self; HttpOnly; SameSite=Strict/,
  );
  const health = await fetch(`${first.url}/health`);
  assert.equal(health.status, 200);
  const created = await fetch(`${first.url}/self/shops`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Over HTTP' }),
  });
  assert.equal(created.status, 200);
  assert.equal(((await created.json()) as { data: { name: string } }).data.name, 'Over HTTP');

  first.child.kill('SIGTERM');
  // 'close': the process exited and its output ended, so every line it logged is read.
  const [code] = await once(first.child, 'close');
  assert.equal(code, 0, 'graceful shutdown exits cleanly');
  // The token is on the link's line alone: the requests that used it left no trace of it in the log.
  assert.equal(first.output().split(setupToken).length, 2, 'printed once, in no log line');

  const second = await startServer(env);
  onEnd(t, () => second.child.kill('SIGKILL'));
  assert.ok(!second.output().includes('First API key'), 'the key is printed on the first start only');
  assert.equal(setupTokenOf(second.output()), undefined, 'and so is the link');
  const shops = await fetch(`${second.url}/self/shops`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(((await shops.json()) as { data: unknown[] }).data.length, 1, 'data survived the restart');
  second.child.kill('SIGTERM');
  await once(second.child, 'exit');
});

test('the server and `seed --demo` write one SQLite file at once: no 5xx in either process', {
  skip: engine !== 'sqlite' && 'two processes on one file: SQLite only',
}, async (t) => {
  const { config, env } = await processEnv(t);
  // The shop the server's buyers order from, made before the server starts.
  const setup = await buildApp({ config, logger: false });
  const api = await owner(setup);
  const shop = await sellingShop(api, { serviceStock: null });
  await setup.close();
  const server = await startServer({ ...env, RATE_LIMIT_PUBLIC_MAX: '0', RATE_LIMIT_OWNER_MAX: '0' });
  onEnd(t, () => server.child.kill('SIGKILL'));

  // Buyers check out and the owner completes each order (transactions that read, then write),
  // four at a time, for as long as the seed writes from its own process.
  let seeded: CliResult | undefined;
  const seeding = cli(env, 'seed', '--demo').then((result) => (seeded = result));
  const answers: number[] = [];
  const failures: string[] = [];
  const call = async (path: string, body?: unknown, key?: string) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: key } : {}) },
      body: JSON.stringify(body ?? {}),
    });
    const text = await res.text();
    answers.push(res.status);
    if (res.status >= 500) failures.push(`${res.status} POST ${path}: ${text}`);
    return res.status === 200 ? (JSON.parse(text) as { data: { id: string } }).data : undefined;
  };
  const buyer = async (n: number) => {
    for (let i = 0; !seeded; i++) {
      const parts = [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }];
      const invoice = await call(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: `buyer${n}-${i}@example.com`,
        gateway: 'tipjar',
        parts,
      });
      if (invoice) await call(`/self/${shop.shopId}/invoices/${invoice.id}/process`, undefined, api.key);
    }
  };
  await Promise.all([seeding, buyer(1), buyer(2), buyer(3), buyer(4)]);
  t.diagnostic(`${answers.length} checkouts and completions while the seed ran`);

  assert.equal(seeded!.code, 0, `the seed succeeded: ${seeded!.stderr}`);
  // Run without the server's PORT, the seed still links to where the server answers.
  assert.match(seeded!.stdout, new RegExp(`^Storefront: ${server.url}/s/demo-shop[\\w-]*/$`, 'm'));
  assert.match(
    seeded!.stdout,
    new RegExp(`^Admin: ${server.url}/admin/ as demo@localhost;.* ${server.url}/admin/setup#token=`, 'm'),
  );
  assert.deepEqual(failures, [], 'no answer of the server was a 5xx');
  assert.ok(
    answers.length > 0 && answers.every((status) => status === 200),
    `every checkout and completion succeeded: ${[...new Set(answers)].join(', ')}`,
  );
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
});

test("the CLI's links use the running server's address when the command has no PORT or PUBLIC_URL of its own", async (t) => {
  const { env } = await processEnv(t);
  const server = await startServer(env);
  onEnd(t, () => server.child.kill('SIGKILL'));
  // PORT=0: the server's own link names the port it really listens on.
  const port = /:(\d+)$/.exec(server.url)![1]!;
  assert.notEqual(port, '0');
  assert.match(server.output(), new RegExp(`valid 24 h\\): ${server.url}/admin/setup#token=`));

  const link = async (extra: Record<string, string> = {}) => {
    const result = await cli({ ...env, ...extra }, 'users', 'setup-link', '--email', 'owner@localhost');
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim().split('\n').at(-1)!;
  };
  assert.ok((await link()).startsWith(`${server.url}/admin/setup#token=`));
  assert.ok((await link({ PORT: '4321' })).startsWith('http://127.0.0.1:4321/admin/'), "the command's own PORT wins");
  assert.ok(
    (await link({ PUBLIC_URL: 'https://keys.example.com' })).startsWith('https://keys.example.com/admin/'),
    "the command's own PUBLIC_URL wins",
  );

  // Once the server has stopped, its address is forgotten: the configured default again.
  assert.equal(await server.stop(), 0);
  assert.ok((await link()).startsWith('http://127.0.0.1:3000/admin/setup#token='));
});

test('a start that cannot listen (port in use) creates no key; the next start prints it', async (t) => {
  const { env } = await processEnv(t);
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  onEnd(t, () => new Promise((resolve) => busy.close(resolve)));
  const { port } = busy.address() as AddressInfo;

  // Its whole output, read once the process and its streams ended (endOf waits for 'close').
  const { code, stdout, stderr } = await endOf(spawnServer(env, port));
  assert.notEqual(code, 0, 'a busy port ends the start');
  assert.match(stderr, /EADDRINUSE/);
  assert.ok(!stdout.includes('First API key'), 'no key is shown by a start that failed');
  assert.equal(setupTokenOf(stdout), undefined, 'nor a link');

  const server = await startServer(env);
  onEnd(t, () => server.child.kill('SIGKILL'));
  const keyLines = server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('First API key'));
  assert.equal(keyLines.length, 1, 'the first start that listens shows the key');
  assert.ok(setupTokenOf(server.output()), 'and the link');
  const key = /(shopd_[A-Za-z0-9_-]{43})$/.exec(keyLines[0]!)![1]!;
  const shops = await fetch(`${server.url}/self/shops`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(shops.status, 200, "and it is the owner's key");
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
});

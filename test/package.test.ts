import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { onEnd, processEnv } from './helpers/build.js';
import { sqlitePassOnly } from './helpers/deploy-tools.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

/** Every file path under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(dir, path) : [path];
  });
}

/**
 * The package as `npm pack` makes it (from the dist/ the test runner built), unpacked beside this
 * checkout's node_modules: what `npm install shopd` would put on a machine. It holds no
 * TypeScript, so its `shopd` command can only run the compiled code.
 */
test('the packed package runs compiled JavaScript: the CLI, and the server with its admin and storefront assets', {
  skip: sqlitePassOnly,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-pack-'));
  onEnd(t, () => rmSync(dir, { recursive: true, force: true }));
  // --ignore-scripts: prepack would build again; the runner built dist/ already.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  await run('tar', ['-xzf', join(dir, filename), '-C', dir]);
  const pkg = join(dir, 'package');
  symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'), 'dir');

  const files = filesUnder(pkg).filter((f) => !f.startsWith('node_modules/'));
  assert.deepEqual(
    files.filter((f) => /\.tsx?$/.test(f)),
    [],
    'no TypeScript source is published',
  );
  for (const needed of [
    'bin/shopd.js',
    'dist/src/cli.js',
    'dist/src/server.js',
    'dist/src/db/reader-boot.mjs',
    'dist/src/db/reader-thread.js',
    'dist/web/storefront/assets/storefront.css',
    'dist/web/admin/dist/index.html',
    // The OpenAPI document's prose, read by the compiled server beside itself (src/http/openapi-tags.ts).
    'dist/docs/api/README.md',
    'dist/docs/api/introduction.md',
    'deploy/shopd.service',
  ])
    assert.ok(files.includes(needed), `${needed} is in the package`);
  assert.ok(!files.includes('dist/.tsbuildinfo'), 'the compiler state is not');

  // npm runs the package's postinstall on install: with no admin sources to build, it does nothing.
  const postinstall = await run('npm', ['run', 'postinstall'], { cwd: pkg });
  assert.doesNotMatch(postinstall.stdout, /building web\/admin/);
  assert.ok(!filesUnder(pkg).some((f) => f.startsWith('web/')), 'and nothing is built beside dist/');

  const { env } = await processEnv(t);
  const cli = await run(process.execPath, [join(pkg, 'bin/shopd.js'), 'migrate', '--dry-run'], {
    env: { ...process.env, ...env },
  });
  assert.match(cli.stdout, /database is up to date|would run|first start creates it/);

  // The installed package's server. The storefront's assets are read beside the compiled code as
  // it loads (web/storefront/assets.ts), so a start that completes found them; the admin's built
  // page and bundle are served from dist/ too.
  const server = spawn(process.execPath, [join(pkg, 'bin/shopd.js'), 'serve'], {
    env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onEnd(t, () => server.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  server.stderr.on('data', (d: Buffer) => (stderr += d));
  const url = await new Promise<string>((done, fail) => {
    server.stdout.on('data', (d: Buffer) => {
      stdout += d;
      const match = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout);
      if (match && stdout.includes('"msg":"startup complete"')) done(match[1]!);
    });
    server.on('exit', (code) => fail(new Error(`the packaged server exited with ${code}: ${stderr}`)));
  });
  assert.ok(!stderr.includes('running them'), 'the package never falls back to sources');
  const admin = await fetch(`${url}/admin/`);
  assert.equal(admin.status, 200);
  assert.match(await admin.text(), /<script type="module"[^>]+src="\/admin\/assets\//);
  const page = await fetch(`${url}/admin/`).then((r) => r.text());
  const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(page)![1]!;
  assert.equal((await fetch(`${url}${script}`)).status, 200, 'the built admin bundle is served');
  server.kill('SIGTERM');
  await new Promise((done) => server.on('exit', done));
});

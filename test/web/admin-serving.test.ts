import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { adminDist, adminRoutes } from '../../web/admin/serve.js';

/** The admin's files as the server hands them out: web/admin/serve.ts on a build made up for the test. */

async function serve(t: TestContext, files: Record<string, string> | null) {
  const dist = mkdtempSync(join(tmpdir(), 'shopd-admin-'));
  t.after(() => rmSync(dist, { recursive: true, force: true }));
  if (files) {
    mkdirSync(join(dist, 'assets'));
    for (const [name, body] of Object.entries(files)) writeFileSync(join(dist, name), body);
  }
  const app = Fastify();
  t.after(() => app.close());
  await app.register((scope) => adminRoutes(scope, { dist }));
  return { app, dist };
}

const build = {
  'index.html': '<!doctype html><script type="module" src="/admin/assets/index-abc123.js"></script>',
  'assets/index-abc123.js': 'console.log("admin")',
};

test('/admin and every path under it answer the app page, revalidated, with a strict CSP and no framing', async (t) => {
  const { app } = await serve(t, build);
  for (const url of ['/admin', '/admin/', '/admin/3/orders/abc', '/admin/setup']) {
    const res = await app.inject(url);
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.body, build['index.html']);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    const csp = res.headers['content-security-policy'] as string;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
  }
});

test('hashed assets are cached for a year; a missing asset is a 404, not the app page', async (t) => {
  const { app, dist } = await serve(t, build);
  const asset = await app.inject('/admin/assets/index-abc123.js');
  assert.equal(asset.statusCode, 200);
  assert.equal(asset.body, build['assets/index-abc123.js']);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  const missing = await app.inject('/admin/assets/index-gone.js');
  assert.equal(missing.statusCode, 404);
  // A file beside assets/: no path climbing out of assets/ reaches it (the app page may answer instead).
  writeFileSync(join(dist, 'beside.txt'), 'NOT-AN-ASSET');
  for (const url of [
    '/admin/assets/..%2fbeside.txt',
    '/admin/assets/../beside.txt',
    '/admin/assets/%2e%2e/beside.txt',
  ]) {
    const outside = await app.inject(url);
    assert.ok(!outside.body.includes('NOT-AN-ASSET'), url);
  }
});

test('before a build exists, /admin says how to make one', async (t) => {
  const { app } = await serve(t, null);
  const res = await app.inject('/admin/');
  assert.equal(res.statusCode, 503);
  assert.match(res.body, /npm run build:admin/);
});

// The admin `npm install` built: a few hundred KB gzipped at most (issue 22), and the first
// screen's code (the entry chunk) small enough to start fast. Screens are separate chunks.
test('the built admin stays small', { skip: !existsSync(join(adminDist, 'index.html')) && 'no admin build' }, () => {
  const assets = join(adminDist, 'assets');
  let total = 0;
  let entry = 0;
  const html = readFileSync(join(adminDist, 'index.html'), 'utf8');
  for (const name of readdirSync(assets)) {
    const size = gzipSync(readFileSync(join(assets, name))).length;
    total += size;
    if (html.includes(`/admin/assets/${name}`)) entry += size;
  }
  assert.ok(entry > 0, 'index.html names its entry files');
  assert.ok(total < 400 * 1024, `the whole admin is ${Math.round(total / 1024)} KB gzipped (limit 400 KB)`);
  assert.ok(entry < 150 * 1024, `the first screen loads ${Math.round(entry / 1024)} KB gzipped (limit 150 KB)`);
});

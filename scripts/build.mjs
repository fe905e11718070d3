#!/usr/bin/env node
// `npm run build`: compiles the server (src/, web/ but the admin's sources) with tsc into dist/,
// beside the files it reads at run time (the storefront's assets, the SQLite reader thread's boot
// file, the built admin, the OpenAPI document's Markdown), so that dist/ with node_modules and
// package.json is all a deployment runs: `node dist/src/server.js`, or `shopd` (bin/shopd.js)
// which prefers it.
//
//   node scripts/build.mjs            the admin (Vite) and a clean compile
//   node scripts/build.mjs --quick    an incremental compile, the admin only when it was never
//                                     built (the test runner's step: a no-op takes ~5 s)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
const root = resolve(import.meta.dirname, '..');
const dist = resolve(root, 'dist');
const started = Date.now();

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run([resolve(root, 'scripts/build-admin.mjs'), ...(values.quick ? ['--if-missing'] : [])]);
// The stamp's time: after the admin's build (which writes under web/), before the compile reads the sources.
const compileStarted = Date.now();
if (!values.quick) rmSync(dist, { recursive: true, force: true });
run([resolve(root, 'node_modules/typescript/bin/tsc'), '-p', resolve(root, 'tsconfig.build.json')]);

// What the compiled code reads beside itself, at the same relative paths as in the sources (the
// OpenAPI document's prose: docs/api, read by src/http/openapi-tags.ts).
const copies = [
  ['src/db/reader-boot.mjs', 'src/db/reader-boot.mjs'],
  ['docs/api', 'docs/api'],
  ['web/storefront/assets', 'web/storefront/assets'],
  ['web/admin/dist', 'web/admin/dist'],
];
for (const [from, to] of copies) {
  rmSync(resolve(dist, to), { recursive: true, force: true });
  cpSync(resolve(root, from), resolve(dist, to), { recursive: true });
}
// When the compile started: bin/shopd.js runs the sources instead when one is newer (a checkout
// edited since, or during the compile). tsc leaves an unchanged output's time alone, so the stamp
// is written every build.
const stamp = resolve(dist, 'BUILT');
writeFileSync(stamp, `${new Date(compileStarted).toISOString()}\n`);
utimesSync(stamp, compileStarted / 1000, compileStarted / 1000);
if (!existsSync(resolve(dist, 'src/server.js'))) {
  console.error('build: dist/src/server.js is missing after the compile');
  process.exit(1);
}
console.log(`build: dist/ ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

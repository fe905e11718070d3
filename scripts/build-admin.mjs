#!/usr/bin/env node
// Builds the owner's admin (web/admin) into web/admin/dist, which the server serves at /admin.
// Run by `npm install` (postinstall) and by `npm start` when no build is there (--if-missing), so
// the README's two commands stay the whole set-up. First it writes the API client's types
// (web/admin/src/api/schema.d.ts) from the server's OpenAPI document, then Vite bundles the app.
// --types-only writes the types alone (the type check runs it: a schema change that breaks the
// admin fails `npm run typecheck`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { 'if-missing': { type: 'boolean' }, 'types-only': { type: 'boolean' } } });
const root = resolve(import.meta.dirname, '..');
const admin = resolve(root, 'web/admin');

if (values['if-missing'] && existsSync(resolve(admin, 'dist/index.html'))) process.exit(0);
// An installed package has no admin sources: it carries the built admin in dist/ (npm run build).
if (!existsSync(resolve(admin, 'vite.config.ts'))) process.exit(0);

const started = Date.now();
const generated = spawnSync(process.execPath, ['--import', 'tsx', resolve(admin, 'scripts/generate-api.ts')], {
  cwd: root,
  stdio: 'inherit',
});
if (generated.status !== 0) {
  console.error('admin: generating the API types from the OpenAPI document failed');
  process.exit(generated.status ?? 1);
}
if (values['types-only']) process.exit(0);

console.log('admin: building web/admin into web/admin/dist …');
const { build } = await import('vite');
await build({ configFile: resolve(admin, 'vite.config.ts'), logLevel: 'warn' });
console.log(`admin: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);

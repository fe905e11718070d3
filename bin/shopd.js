#!/usr/bin/env node
// The package's command. It runs the compiled CLI (dist/, made by `npm run build`; the published
// package holds only that). In a checkout without a build, or whose sources changed since the
// last one, it runs the TypeScript sources through tsx's loader instead, and says so.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const stamp = join(root, 'dist', 'BUILT');

/**
 * The newest modification time of a file under `dir`: the server's sources and what the build
 * copies (src/, web/, the built admin in web/admin/dist included, which `npm install` rebuilds,
 * and docs/api, the OpenAPI document's prose).
 */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function compiledIsCurrent() {
  if (!existsSync(stamp)) return false;
  if (!existsSync(join(root, 'src'))) return true; // an installed package: dist/ is all there is
  const built = statSync(stamp).mtimeMs;
  const sources = ['src', 'web', 'docs/api'].map((dir) => newestSource(join(root, dir)));
  if (Math.max(...sources) <= built) return true;
  process.stderr.write('shopd: the sources changed since the last build; running them (npm run build compiles them)\n');
  return false;
}

if (compiledIsCurrent()) {
  await import('../dist/src/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from '../helpers/build.js';

/**
 * A reader finds an endpoint by grepping its path: every path of the OpenAPI document appears
 * literally, in Fastify's form and without the prefix its plugin is registered under, in one of
 * the routes files (a path built in a loop from pieces would not).
 */
const prefixes = ['/self', '/v2/public'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('every route path is written out in full in a routes file', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
  // A parameter may carry its regular expression in Fastify's form (`:fileId(^(?!uploads$).+$)`):
  // the path is still written out, its pattern beside it.
  const sources = sourceFiles('src').map((file) =>
    readFileSync(file, 'utf8').replace(/(:\w+)\([^'`\n]*\)(?=['`])/g, '$1'),
  );
  const paths = Object.keys(doc.paths);
  assert.ok(paths.length > 100, `the document lists ${paths.length} paths`);
  const missing = paths.filter((path) => {
    const fastifyPath = path.replace(/\{(\w+)\}/g, ':$1');
    const prefix = prefixes.find((p) => fastifyPath.startsWith(`${p}/`));
    const local = prefix ? fastifyPath.slice(prefix.length) : fastifyPath;
    return !sources.some((text) => text.includes(`'${local}'`) || text.includes(`\`${local}\``));
  });
  assert.deepEqual(missing, [], 'paths not written out in full in any file under src/');
});

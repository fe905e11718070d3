import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';

/**
 * A file the documentation names exists. The check is cheap: every repository path inside inline
 * backticks (`src/…`, `docs/…`, `bench/…`, `test/…` and the other top-level folders) of the
 * README, docs/ and bench/README.md. A path with a placeholder (`src/modules/<resource>/index.ts`,
 * `data/bench/<engine>-seed.json`) is checked up to the folder before it; a `*` matches within
 * one name (`test/deploy-*.test.ts`).
 */
const root = resolve(import.meta.dirname, '../..');
const folders = ['src', 'docs', 'bench', 'test', 'web', 'e2e', 'scripts', 'deploy', 'bin'];
/** Files the reader makes by following the documentation, not files of the repository. */
const madeByTheReader = new Set(['deploy/.env']);

function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return docs(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', 'bench/README.md', ...docs('docs')];
}

/** The repository paths named in a Markdown text's inline code, fenced blocks left out. */
function namedPaths(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  const token = new RegExp(`(?:^|[\\s(=])((?:${folders.join('|')})/[^\\s\`'"()\\[\\],;]*)`, 'g');
  const paths = new Set<string>();
  for (const [, code] of prose.matchAll(/`([^`\n]+)`/g))
    for (const [, path] of code!.matchAll(token)) paths.add(path!.replace(/[.:]+$/, ''));
  return [...paths];
}

/** Whether `path` exists: up to a placeholder, and with `*` matching within one name. */
function exists(path: string): boolean {
  const placeholder = path.search(/[<{…]/);
  const checked = placeholder === -1 ? path : path.slice(0, path.lastIndexOf('/', placeholder) + 1);
  if (!checked.includes('*')) return existsSync(join(root, checked));
  const dir = join(root, dirname(checked));
  const name = new RegExp(
    `^${checked
      .slice(checked.lastIndexOf('/') + 1)
      .replace(/[.+?^$|()[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return existsSync(dir) && readdirSync(dir).some((entry) => name.test(entry));
}

test('every repository path the documentation names exists', () => {
  const files = markdownFiles();
  assert.ok(files.includes('docs/internals.md') && files.includes('docs/api/README.md'), files.join(', '));
  const missing: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const path of namedPaths(readFileSync(join(root, file), 'utf8'))) {
      checked++;
      if (!madeByTheReader.has(path) && !exists(path)) missing.push(`${file}: ${path}`);
    }
  }
  assert.ok(checked > 20, `paths checked: ${checked}`);
  assert.deepEqual(missing, [], 'paths named in the documentation that do not exist');
});

test('the path check finds paths in inline code and would catch a stale one', () => {
  const markdown = [
    'See `src/db/heavy-write.ts` and `node scripts/build.mjs --quick`; `test/deploy-*.test.ts`.',
    '```sh',
    'cp deploy/compose.env.example deploy/.env',
    '```',
    'A placeholder: `src/modules/<resource>/index.ts`, a URL path `/self/shops`.',
  ].join('\n');
  const paths = namedPaths(markdown);
  assert.deepEqual(paths, [
    'src/db/heavy-write.ts',
    'scripts/build.mjs',
    'test/deploy-*.test.ts',
    'src/modules/<resource>/index.ts',
  ]);
  assert.deepEqual(
    paths.filter((path) => !exists(path)),
    ['src/db/heavy-write.ts'],
  );
});

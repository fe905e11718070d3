import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

// The admin-strings check (scripts/lint-admin-strings.mjs) run on a directory of its own: a
// component that writes its wording in JSX text or in a label attribute fails it, one that takes
// its wording from strings.ts passes, and so do class names, test ids and punctuation.

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const clean = [
  "import { strings } from './strings';",
  'export function Clean(props: { n: number }) {',
  '  return (',
  '    <section className="orders-list" data-testid="orders" aria-label={strings.orders.title}>',
  '      <h1 title={strings.orders.title}>{strings.orders.title}</h1>',
  '      <input placeholder={strings.common.search} type="search" name="q" />',
  '      <img alt="" src="/logo.png" />',
  '      <span>{props.n} · </span>',
  '      {/* A comment is no wording. */}',
  '    </section>',
  '  );',
  '}',
  '',
].join('\n');

const offending = [
  'export function Offending() {',
  '  return (',
  '    <section className="orders-list">',
  '      <h1>No orders yet</h1>',
  '      <button type="button" aria-label="Close the dialog">',
  '        ✕',
  '      </button>',
  "      <input placeholder={'Search orders'} />",
  '    </section>',
  '  );',
  '}',
  '',
].join('\n');

// The script is found from the repository's root; the directory checked is the argument.
const script = join(import.meta.dirname, '../../scripts/lint-admin-strings.mjs');

function run(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-admin-strings-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return new Promise((resolve) => {
    execFile(process.execPath, [script, dir], { cwd: dir }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr });
    });
  });
}

test('a component that takes its wording from strings.ts passes', async () => {
  const { code, output } = await run({ 'Clean.tsx': clean, 'strings.ts': "export const strings = { x: 'Words' };\n" });
  assert.equal(code, 0, output);
  assert.match(output, /no literal wording/);
});

test('a component with wording in JSX text and label attributes fails, with file and line', async () => {
  const { code, output } = await run({ 'Clean.tsx': clean, 'Offending.tsx': offending });
  assert.equal(code, 1, output);
  assert.match(output, /^Offending\.tsx:4 JSX text "No orders yet"$/m);
  assert.match(output, /^Offending\.tsx:5 aria-label="Close the dialog"$/m);
  assert.match(output, /^Offending\.tsx:8 placeholder="Search orders"$/m);
  assert.match(output, /3 admin string\(s\)/);
  assert.doesNotMatch(output, /Clean\.tsx/);
  assert.doesNotMatch(output, /✕/);
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';

// Each rule of .dependency-cruiser.cjs (and the module-cycle check of scripts/lint-deps.mjs) run
// on a small tree with one bad import: `npm run lint:deps` must fail naming the rule. The same
// tree without the bad import passes, so the failures come from the import, not the harness.

const trees: string[] = [];
after(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** A module `a` with its door, a module `b` that goes through it, and the composition root. */
const clean: Record<string, string> = {
  'src/modules/a/a.table.ts': 'export interface ATable { id: number }\n',
  'src/modules/a/repository.ts':
    "import type { ATable } from './a.table.js';\nexport const findA = (id: number): ATable => ({ id });\n",
  'src/modules/a/service.ts':
    "import { findA } from './repository.js';\nexport const getA = (id: number) => findA(id);\n",
  'src/modules/a/index.ts': "export { getA } from './service.js';\n",
  'src/modules/b/service.ts': "import { getA } from '../a/index.js';\nexport const getB = () => getA(1);\n",
  'src/modules/b/index.ts': "export { getB } from './service.js';\n",
  'src/db/schema.ts':
    "import type { ATable } from '../modules/a/a.table.js';\nexport interface Database { a: ATable }\n",
  'src/db/migrations/0001-a.ts': 'export const up = () => "create table a (id integer)";\n',
  'src/http/errors.ts': 'export class AppError extends Error {}\n',
  'src/shared/words.ts': 'export const words = (message: string) => message.trim();\n',
  'web/admin/src/main.ts': "import { words } from '../../../src/shared/words.js';\nexport const main = words;\n",
  'src/app.ts':
    "import { getA } from './modules/a/index.js';\nimport { getB } from './modules/b/index.js';\nexport const app = [getA, getB];\n",
};

function lintDeps(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-boundaries-'));
  trees.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const args = ['scripts/lint-deps.mjs', '--base', dir];
  return new Promise((resolve) => {
    execFile(process.execPath, args, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr });
    });
  });
}

// Each run loads TypeScript (seconds): start them all at once, then check each in its test.
const cleanRun = lintDeps(clean);

test('a tree that keeps the boundaries passes', async () => {
  const { code, output } = await cleanRun;
  assert.equal(code, 0, output);
  assert.match(output, /0 violation\(s\)/);
});

const violations: { rule: string; files: Record<string, string> }[] = [
  {
    rule: 'module-through-entry',
    files: {
      'src/modules/b/service.ts': "import { findA } from '../a/repository.js';\nexport const getB = () => findA(1);\n",
    },
  },
  {
    rule: 'outside-through-entry',
    files: { 'src/app.ts': "import { findA } from './modules/a/repository.js';\nexport const app = [findA];\n" },
  },
  {
    rule: 'no-cycles',
    files: {
      'src/http/one.ts': "import { two } from './two.js';\nexport const one = () => two();\n",
      'src/http/two.ts': "import { one } from './one.js';\nexport const two = (): unknown => one;\n",
    },
  },
  {
    // No file cycle: a/extra.ts -> b/index.ts -> b/service.ts -> a/index.ts -> a/service.ts.
    rule: 'module-cycles',
    files: { 'src/modules/a/extra.ts': "import { getB } from '../b/index.js';\nexport const extra = () => getB();\n" },
  },
  {
    rule: 'migrations-frozen',
    files: {
      'src/db/migrations/0001-a.ts': "import { getA } from '../../modules/a/index.js';\nexport const up = getA;\n",
    },
  },
  {
    rule: 'infrastructure-below-modules',
    files: { 'src/http/errors.ts': "import { getA } from '../modules/a/index.js';\nexport const errors = getA;\n" },
  },
  {
    rule: 'admin-is-browser-code',
    files: {
      'web/admin/src/main.ts':
        "import { AppError } from '../../../src/http/errors.js';\nexport const main = AppError;\n",
    },
  },
  {
    rule: 'shared-is-browser-safe',
    files: { 'src/shared/words.ts': "import { AppError } from '../http/errors.js';\nexport const words = AppError;\n" },
  },
  {
    rule: 'shared-no-node-builtins',
    files: { 'src/shared/words.ts': "import { readFileSync } from 'node:fs';\nexport const words = readFileSync;\n" },
  },
  {
    rule: 'db-schema-table-types-only',
    files: {
      'src/db/schema.ts':
        "import type { findA } from '../modules/a/repository.js';\nexport type Database = typeof findA;\n",
    },
  },
  {
    rule: 'db-schema-table-type-imports',
    files: {
      'src/db/schema.ts': "import { ATable } from '../modules/a/a.table.js';\nexport type Database = ATable;\n",
    },
  },
];

for (const { rule, files } of violations) {
  const run = lintDeps({ ...clean, ...files });
  test(`${rule}: a bad import fails the check`, async () => {
    const { code, output } = await run;
    assert.equal(code, 1, output);
    assert.match(output, new RegExp(`error ${rule}:`));
  });
}

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';

// The table-ownership check (scripts/lint-tables.mjs) run on a small tree of two modules with a
// table each: a foreign read, a foreign write, raw SQL naming a foreign table and a door that
// exports a repository function each fail it; the clean tree, a declared read model's read and a
// baselined violation pass; a stale baseline entry and an unused read-model entry fail.

const trees: string[] = [];
after(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** Modules `a` (table a_items) and `b` (table b_items), each reading and writing its own table only. */
const clean: Record<string, string> = {
  'src/modules/a/a.table.ts': 'export interface ATable { id: number; title: string }\n',
  'src/modules/a/repository.ts': [
    "import { type Kysely, sql } from 'kysely';",
    "import type { Database } from '../../db/schema.js';",
    '// Comments and plain strings are not SQL: select * from b_items.',
    "export const note = 'delete from b_items';",
    'export const findA = (db: Kysely<Database>, id: number) =>',
    "  db.selectFrom('a_items as a').selectAll().where('a.id', '=', id).executeTakeFirst();",
    'export const addA = (db: Kysely<Database>, title: string) =>',
    "  db.insertInto('a_items').values({ id: 1, title }).execute();",
    'export const countA = (db: Kysely<Database>) =>',
    '  sql<number>`select count(*) from a_items -- not b_items`.execute(db);',
    '',
  ].join('\n'),
  'src/modules/a/service.ts':
    "import { findA } from './repository.js';\nexport const getA = (db: never, id: number) => findA(db, id);\n",
  'src/modules/a/index.ts': "export { getA } from './service.js';\nexport type { ATable } from './a.table.js';\n",
  'src/modules/b/b.table.ts': 'export interface BTable { id: number; a_id: number }\n',
  'src/modules/b/repository.ts': [
    "import type { Kysely } from 'kysely';",
    "import type { Database } from '../../db/schema.js';",
    'export const findB = (db: Kysely<Database>, id: number) =>',
    "  db.selectFrom(['b_items']).selectAll().where('id', '=', id).executeTakeFirst();",
    '',
  ].join('\n'),
  'src/modules/b/index.ts': "export type { BTable } from './b.table.js';\n",
  'src/db/schema.ts': [
    "import type { ATable } from '../modules/a/a.table.js';",
    "import type { BTable } from '../modules/b/b.table.js';",
    'export interface Database {',
    '  a_items: ATable;',
    '  b_items: BTable;',
    '}',
    '',
  ].join('\n'),
  // Migrations are exempt: they may name every table.
  'src/db/migrations/0001-init.ts':
    "export const up = 'create table a_items (id integer); insert into b_items select * from a_items';\n",
};

/** b's repository with one more function. */
const inB = (code: string) => ({
  'src/modules/b/repository.ts': `${clean['src/modules/b/repository.ts']}${code}\n`,
});

const readModel = {
  'scripts/table-read-models.json': JSON.stringify({
    readModels: [
      {
        module: 'b',
        files: ['src/modules/b/repository.ts'],
        reads: ['a_items'],
        reason: 'b shows its rows with the titles of their a',
      },
    ],
  }),
};

function lintTables(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-tables-'));
  trees.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/lint-tables.mjs', '--base', dir], (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr });
    });
  });
}

const cases: { name: string; files: Record<string, string>; code: 0 | 1; output: RegExp[] }[] = [
  {
    name: 'a tree where each module names only its own tables passes',
    files: {},
    code: 0,
    output: [/ 0 new violation/],
  },
  {
    name: 'a foreign read fails',
    files: inB(
      "export const withA = (db: Kysely<Database>) =>\n  db.selectFrom('b_items').innerJoin('a_items as a', 'a.id', 'b_items.a_id').selectAll().execute();",
    ),
    code: 1,
    output: [/^src\/modules\/b\/repository\.ts:6 module b reads table a_items of module a$/m, / 1 new violation/],
  },
  {
    name: 'a foreign write fails',
    files: inB(
      "export const renameA = (db: Kysely<Database>) =>\n  db.updateTable('a_items').set({ title: 'x' }).execute();",
    ),
    code: 1,
    output: [/^src\/modules\/b\/repository\.ts:6 module b writes table a_items of module a$/m],
  },
  {
    name: 'a foreign table in raw sql fails, read and write',
    files: {
      ...inB(
        "import { sql } from 'kysely';\nexport const purge = (db: Kysely<Database>) =>\n" +
          '  sql`delete from a_items where id not in (select a_id from b_items)`.execute(db);\n' +
          'export const titles = (db: Kysely<Database>) =>\n' +
          '  sql`select b.id, a.title\n    from b_items b join "a_items" a on a.id = b.a_id`.execute(db);',
      ),
    },
    code: 1,
    output: [
      /^src\/modules\/b\/repository\.ts:7 module b writes table a_items of module a$/m,
      /^src\/modules\/b\/repository\.ts:10 module b reads table a_items of module a$/m,
      / 2 new violation/,
    ],
  },
  {
    name: 'a table name given by its type, or by a destructured selectFrom, is seen',
    files: inB(
      "export const some = <T extends 'a_items' | 'b_items'>(db: Kysely<Database>, table: T) =>\n" +
        '  db.selectFrom(table as string).selectAll().execute();\n' +
        'export const anyA = (db: Kysely<Database>) =>\n' +
        "  db.selectFrom('b_items').where(({ exists, selectFrom }) => exists(selectFrom('a_items'))).execute();",
    ),
    code: 1,
    output: [
      /^src\/modules\/b\/repository\.ts:6 module b reads table a_items of module a$/m,
      /^src\/modules\/b\/repository\.ts:8 module b reads table a_items of module a$/m,
    ],
  },
  {
    name: 'a door exporting a repository function fails',
    files: {
      'src/modules/a/index.ts': "export { getA } from './service.js';\nexport { findA } from './repository.js';\n",
    },
    code: 1,
    output: [/^src\/modules\/a\/index\.ts:2 module a door exports findA from repository \.\/repository\.js/m],
  },
  {
    name: 'a door exporting an imported repository binding fails',
    files: {
      'src/modules/a/index.ts':
        "import * as repository from './repository.js';\nexport const findA = repository.findA;\n",
    },
    code: 1,
    output: [/^src\/modules\/a\/index\.ts:2 module a door exports findA from repository/m],
  },
  {
    name: 'a declared read model may read the foreign table',
    files: {
      ...readModel,
      ...inB("export const titles = (db: Kysely<Database>) =>\n  db.selectFrom('a_items').select('title').execute();"),
    },
    code: 0,
    output: [/ 0 new violation/],
  },
  {
    name: 'a declared read model may not write the foreign table',
    files: {
      ...readModel,
      ...inB(
        "export const titles = (db: Kysely<Database>) =>\n  db.selectFrom('a_items').select('title').execute();\n" +
          "export const dropA = (db: Kysely<Database>) => db.deleteFrom('a_items').execute();",
      ),
    },
    code: 1,
    output: [/^src\/modules\/b\/repository\.ts:7 module b writes table a_items of module a$/m, / 1 new violation/],
  },
  {
    name: 'a read-model entry no code uses fails',
    files: readModel,
    code: 1,
    output: [/unused read-model entry, remove it: module b reads a_items/],
  },
  {
    name: 'a baselined violation is reported as known and passes',
    files: {
      ...inB("export const dropA = (db: Kysely<Database>) => db.deleteFrom('a_items').execute();"),
      'scripts/table-ownership-baseline.json': JSON.stringify({
        known: [{ module: 'b', table: 'a_items', access: 'write' }],
      }),
    },
    code: 0,
    output: [/known: module b writes a_items/, / 0 new violation/, / 1 known/],
  },
  {
    name: 'a stale baseline entry fails',
    files: {
      'scripts/table-ownership-baseline.json': JSON.stringify({
        known: [{ module: 'b', table: 'a_items', access: 'write' }],
      }),
    },
    code: 1,
    output: [/stale baseline entry, remove it: \{"module":"b","table":"a_items","access":"write"\}/],
  },
];

// Each run loads TypeScript (seconds): start them all at once, then check each in its test.
const runs = cases.map(({ files }) => lintTables({ ...clean, ...files }));
cases.forEach(({ name, code, output }, i) => {
  test(name, async () => {
    const run = await runs[i]!;
    assert.equal(run.code, code, run.output);
    for (const pattern of output) assert.match(run.output, pattern);
  });
});

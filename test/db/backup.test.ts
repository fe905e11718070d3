import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { engine, onEnd, owner, processEnv } from '../helpers/build.js';
import { type CliResult, cli, resultOf } from '../helpers/cli.js';
import { createShop } from '../helpers/factories.js';

/** Runs a command line printed for the operator (pg_dump, pg_restore) as they would, in a shell. */
function runPrinted(printed: CliResult, tool: 'pg_dump' | 'pg_restore'): Promise<CliResult> {
  const command = printed.stdout.split('\n').find((line) => line.trimStart().startsWith(`${tool} `));
  assert.ok(command, `a ${tool} command is printed: ${printed.stdout}`);
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], (err, stdout, stderr) => resolve(resultOf(err, stdout, stderr)));
  });
}

/** A pause between writes: the other process's output is seen, and the WAL does not grow needlessly fast. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 2));

test('a backup taken under write load holds every row committed before it began, and a restore brings them all back', async (t) => {
  const { config, env } = await processEnv(t);
  const dir = mkdtempSync(join(tmpdir(), 'shopd-backup-'));
  onEnd(t, () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, engine === 'sqlite' ? 'shopd-backup.sqlite' : 'shopd.dump');

  // The running service: one FAQ after another, each committed before the next starts.
  const app = await buildApp({ config, logger: false });
  let closed = false;
  onEnd(t, () => (closed ? undefined : app.close()));
  const shop = await createShop(await owner(app), 'Backed up');
  const db = app.db.kysely;
  // SQLite: a read begun before the first row keeps every later commit in the WAL only (no
  // checkpoint copies past a reader's snapshot), as after a burst of orders: a copy of the
  // database file alone would hold none of the rows below.
  const pinned = config.database.dialect === 'sqlite' ? new SqliteDatabase(config.database.file) : null;
  pinned?.exec('begin');
  pinned?.prepare('select count(*) from faqs').get();
  const committed: number[] = [];
  let writing = true;
  const writer = (async () => {
    for (let n = 0; writing; n++) {
      const row = await db
        .insertInto('faqs')
        .values({ shop_id: shop.id, question: `Q${n}`, answer: 'A', position: n, created_at: n, updated_at: n })
        .returning('id')
        .executeTakeFirstOrThrow();
      committed.push(row.id);
      await turn();
    }
  })();
  onEnd(t, async () => {
    writing = false;
    await writer;
  });
  while (committed.length < 100) await turn();

  const startedWith = committed.length;
  const printed = await cli(env, 'backup', file);
  assert.equal(printed.code, 0, printed.stderr);
  const backedUp = engine === 'sqlite' ? printed : await runPrinted(printed, 'pg_dump');
  const finishedWith = committed.length;
  writing = false;
  await writer;
  pinned?.exec('commit');
  pinned?.close();
  assert.equal(backedUp.code, 0, backedUp.stderr);
  assert.ok(finishedWith > startedWith, 'rows were written while the backup ran');
  t.diagnostic(`${startedWith} rows committed before the backup began, ${finishedWith} before it ended`);

  if (engine === 'sqlite') {
    assert.match(printed.stdout, /^Backed up .* to .*: 1 shops, 0 invoices/m);
    assert.match(
      printed.stdout,
      /Keep the SECRET_KEY value with it/,
      'the key to keep with it (processEnv sets SECRET_KEY)',
    );
    assert.equal((statSync(file).mode & 0o777).toString(8), '600', 'the backup is readable by its owner only');
    assert.ok(!existsSync(`${file}-wal`), 'the backup is one file');
    // While the service has the database open, a restore is refused and changes nothing.
    const refused = await cli(env, 'restore', file);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /in use by another process: stop the server/);
    assert.equal((await db.selectFrom('faqs').select('id').execute()).length, committed.length);
  }
  await app.close();
  closed = true;

  // PostgreSQL: as the printed instructions say, into an empty database (here the test's schema,
  // dropped; the dump creates it again).
  if (config.database.dialect === 'postgres') {
    const empty = openDatabase(config.database);
    await sql`drop schema ${sql.id(config.database.schema!)} cascade`.execute(empty.kysely);
    await empty.destroy();
  }
  const restored =
    engine === 'sqlite'
      ? await cli(env, 'restore', file)
      : await runPrinted(await cli(env, 'restore', file), 'pg_restore');
  assert.equal(restored.code, 0, restored.stderr);

  const after = openDatabase(config.database);
  onEnd(t, () => after.destroy());
  const ids = (
    await after.kysely.selectFrom('faqs').select('id').where('shop_id', '=', shop.id).orderBy('id').execute()
  ).map((r) => r.id);
  assert.ok(
    ids.length >= startedWith,
    `every row committed before the backup began is back (${ids.length} of ${startedWith})`,
  );
  assert.ok(ids.length <= finishedWith, 'nothing committed after the backup ended');
  assert.deepEqual(
    ids,
    committed.slice(0, ids.length),
    'the rows back are exactly the first ones committed: a consistent snapshot',
  );
});

test('restore refuses a file that is not a shopd backup; backup never overwrites a file', {
  skip: engine !== 'sqlite' && 'SQLite only',
}, async (t) => {
  const { env } = await processEnv(t);
  const dir = mkdtempSync(join(tmpdir(), 'shopd-backup-'));
  onEnd(t, () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'one.sqlite');
  assert.equal((await cli(env, 'migrate')).code, 0);
  assert.equal((await cli(env, 'backup', file)).code, 0);
  const again = await cli(env, 'backup', file);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already exists/);

  const notSqlite = join(dir, 'notes.txt');
  await import('node:fs/promises').then((fs) => fs.writeFile(notSqlite, 'hello'));
  const refused = await cli(env, 'restore', notSqlite);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /not a readable SQLite database|cannot be opened/);
  const missing = await cli(env, 'restore', join(dir, 'nope.sqlite'));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no backup file/);
  assert.equal((await cli(env, 'backup')).code, 1, 'a file is required');
});

test('on PostgreSQL, backup and restore print the commands to run, without the password of DATABASE_URL', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-backup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATA_DIR: dir, DATABASE_URL: 'postgres://shop:s3cr%40t@db.example.com:5432/shopd?sslmode=require' };
  const backup = await cli(env, 'backup', join(dir, 'shop.dump'));
  assert.equal(backup.code, 0, backup.stderr);
  assert.match(
    backup.stdout,
    /^ {2}pg_dump --format=custom --file='.*shop\.dump' --dbname='postgres:\/\/shop@db\.example\.com:5432\/shopd\?sslmode=require'$/m,
  );
  assert.match(backup.stdout, /PGPASSWORD or ~\/\.pgpass/);
  assert.match(backup.stdout, /secret\.key/);
  const restore = await cli(env, 'restore', join(dir, 'shop.dump'));
  assert.match(restore.stdout, /into an empty database/);
  assert.match(
    restore.stdout,
    /^ {2}pg_restore --no-owner --exit-on-error --single-transaction --dbname='postgres:\/\/shop@db\.example\.com:5432\/shopd\?sslmode=require' '.*shop\.dump'$/m,
  );
  for (const output of [backup, restore])
    assert.ok(!/s3cr/.test(output.stdout + output.stderr), 'the password is never printed');
  // libpq also takes it as a parameter of the URL.
  const inQuery = await cli(
    {
      ...env,
      DATABASE_URL: 'postgres://shop@db.example.com:5432/shopd?password=s3cr3t&sslpassword=k3y&sslmode=require',
    },
    'backup',
    join(dir, 'shop.dump'),
  );
  assert.equal(inQuery.code, 0, inQuery.stderr);
  assert.match(inQuery.stdout, /--dbname='postgres:\/\/shop@db\.example\.com:5432\/shopd\?sslmode=require'$/m);
  assert.ok(!/s3cr3t|k3y/.test(inQuery.stdout + inQuery.stderr), 'nor in the query');
  assert.match(inQuery.stdout, /PGPASSWORD or ~\/\.pgpass/);
});

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type TestContext, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import type { Config } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrationNames, migrationPlan, NewerDatabaseError } from '../src/db/migrate.js';
import { engine, onEnd, processEnv } from './helpers/build.js';
import { cli } from './helpers/cli.js';
import { endOf, spawnServer } from './helpers/server-process.js';

/**
 * Issue 24: migrations only go forward. `shopd migrate --dry-run` says what would run and changes
 * nothing; a database a newer version migrated (a `kysely_migration` row this version does not
 * know) is refused by `migrate`, its dry run and the server's start.
 */

/** Runs `fn` on a connection of its own to the test's database, closed afterwards. */
async function onDatabase<T>(config: Config, fn: (db: ReturnType<typeof openDatabase>['kysely']) => Promise<T>) {
  const db = openDatabase(config.database);
  try {
    return await fn(db.kysely);
  } finally {
    await db.destroy();
  }
}

/** The names in `kysely_migration`, in order. */
const appliedNames = (config: Config) =>
  onDatabase(config, async (db) =>
    (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)).rows.map((r) => r.name),
  );

/** The tables of the test's database (its schema on PostgreSQL), sorted. */
const tables = (config: Config) =>
  onDatabase(config, async (db) =>
    (await db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => t.name).sort(),
  );

/** A database migrated to this version, as a server's first start leaves it. */
async function migrated(t: TestContext) {
  const { config, env } = await processEnv(t);
  const app = await buildApp({ config, logger: false });
  await app.close();
  assert.deepEqual(await appliedNames(config), [...migrationNames]);
  return { config, env };
}

const latest = migrationNames.at(-1)!;

test('migrate --dry-run on a SQLite file that does not exist lists every migration and creates nothing', async (t) => {
  if (engine !== 'sqlite') return t.skip('SQLite only: PostgreSQL has no file');
  const { config, env } = await processEnv(t);
  assert.equal(config.database.dialect, 'sqlite');
  const file = config.database.dialect === 'sqlite' ? config.database.file : '';
  assert.equal(existsSync(file), false, 'a new database');
  const before = readdirSync(dirname(file));
  const res = await cli(env, 'migrate', '--dry-run');
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(res.stdout.trimEnd().split('\n'), [
    `no database at ${file} yet; the first start creates it and applies all ${migrationNames.length} migrations:`,
    ...migrationNames.map((n) => `  ${n}`),
  ]);
  assert.equal(existsSync(file), false, 'the file is not created');
  assert.deepEqual(readdirSync(dirname(file)), before, 'nor anything beside it');
});

test('migrate --dry-run on an empty PostgreSQL schema lists every migration and creates no table', async (t) => {
  if (engine !== 'postgres') return t.skip('PostgreSQL only');
  const { config, env } = await processEnv(t, { empty: true });
  const res = await cli(env, 'migrate', '--dry-run');
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(res.stdout.trimEnd().split('\n'), [
    `0 migrations applied; ${migrationNames.length} would run, in this order:`,
    ...migrationNames.map((n) => `  ${n}`),
  ]);
  assert.deepEqual(await tables(config), [], 'not even the migrator’s own tables');
});

test('migrate --dry-run on an up-to-date database says nothing would run', async (t) => {
  const { config, env } = await migrated(t);
  const tablesBefore = await tables(config);
  const res = await cli(env, 'migrate', '--dry-run');
  assert.equal(res.code, 0, res.stderr);
  assert.equal(
    res.stdout.trim(),
    `database is up to date (${migrationNames.length} migrations applied); nothing would run`,
  );
  assert.equal(res.stderr, '');
  assert.deepEqual(await tables(config), tablesBefore);
  assert.deepEqual(await appliedNames(config), [...migrationNames]);
});

test('migrate --dry-run on an older database lists exactly what it lacks and applies nothing', async (t) => {
  const { config, env } = await migrated(t);
  // The database of the version before the latest migration: its row is not there.
  await onDatabase(config, (db) => sql`delete from kysely_migration where name = ${latest}`.execute(db));
  const res = await cli(env, 'migrate', '--dry-run');
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(res.stdout.trimEnd().split('\n'), [
    `${migrationNames.length - 1} migrations applied; 1 would run, in this order:`,
    `  ${latest}`,
  ]);
  assert.deepEqual(await appliedNames(config), migrationNames.slice(0, -1), 'the row is still missing');
  // The plan the dry run printed is the one the code reads.
  const plan = await onDatabase(config, (db) => migrationPlan(db));
  assert.deepEqual(plan, { applied: migrationNames.slice(0, -1), pending: [latest], unknown: [] });
});

test('a database a newer version migrated is refused by migrate, its dry run and the server, and left as it is', async (t) => {
  const { config, env } = await migrated(t);
  // A newer version ran `9999-future`; this database also lacks the latest row, so `migrate`
  // would have something to apply if it went ahead.
  await onDatabase(config, async (db) => {
    await sql`delete from kysely_migration where name = ${latest}`.execute(db);
    await sql`insert into kysely_migration (name, timestamp) values ('9999-future', '2099-01-01T00:00:00.000Z')`.execute(
      db,
    );
  });
  const expected = [...migrationNames.slice(0, -1), '9999-future'];
  const tablesBefore = await tables(config);
  const plan = await onDatabase(config, (db) => migrationPlan(db));
  assert.deepEqual(plan.unknown, ['9999-future']);
  assert.deepEqual(plan.pending, [latest]);

  for (const args of [['migrate', '--dry-run'], ['migrate']]) {
    const res = await cli(env, ...args);
    assert.notEqual(res.code, 0, `${args.join(' ')} fails`);
    assert.equal(res.stdout, '', `${args.join(' ')} says nothing would or did run`);
    assert.equal(res.stderr.trim(), new NewerDatabaseError(['9999-future']).message, args.join(' '));
    assert.match(res.stderr, /9999-future/);
    assert.match(res.stderr, /newer version of shopd/);
    assert.match(res.stderr, /restore the backup/);
    assert.deepEqual(await appliedNames(config), expected, `${args.join(' ')} changed no row`);
    assert.deepEqual(await tables(config), tablesBefore, `${args.join(' ')} changed no table`);
  }
  // Every other command that opens the database refuses it too (they migrate first).
  const keys = await cli(env, 'keys', 'create', '--email', 'owner@example.com');
  assert.notEqual(keys.code, 0);
  assert.match(keys.stderr, /9999-future/);
  assert.equal(
    await onDatabase(config, async (db) => (await db.selectFrom('accounts').select('id').execute()).length),
    0,
    'no account was created',
  );

  const server = spawnServer({ ...env, LOG_LEVEL: 'info' }, 0);
  // Its whole output, read once the process and its streams ended (endOf waits for 'close').
  const ended = endOf(server);
  // A server that started after all must not outlive the test.
  onEnd(t, () => server.kill('SIGKILL'));
  const { code, stdout, stderr } = await ended;
  assert.notEqual(code, 0, 'the start fails');
  assert.equal(stderr.trim(), new NewerDatabaseError(['9999-future']).message);
  assert.ok(!stdout.includes('Server listening'), stdout);
  assert.ok(!stdout.includes('First API key'), 'no owner was made');
  assert.deepEqual(await appliedNames(config), expected, 'the start changed no row');
  assert.deepEqual(await tables(config), tablesBefore, 'nor any table');
});

test('the refusal names every unknown migration, in order', () => {
  const one = new NewerDatabaseError(['9999-future']);
  assert.match(one.message, /\(migration 9999-future unknown to this one\)/);
  const two = new NewerDatabaseError(['9998-next', '9999-future']);
  assert.match(two.message, /\(migrations 9998-next, 9999-future unknown to this one\)/);
  assert.deepEqual(two.unknown, ['9998-next', '9999-future']);
});

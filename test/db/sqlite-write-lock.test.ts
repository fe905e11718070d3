import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { build, engine, owner } from '../helpers/build.js';
import { assertError, assertOk } from '../helpers/factories.js';

const sqliteOnly = { skip: engine !== 'sqlite' && 'the SQLite write lock: SQLite only' };

test(
  'a transaction takes the write lock when it begins: another connection writing meanwhile cannot make it fail',
  sqliteOnly,
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'shopd-lock-'));
    const file = join(dir, 'db.sqlite');
    const db = openDatabase({ dialect: 'sqlite', file });
    // Another process's connection, as the CLI's would be; it does not wait, so a refusal shows at once.
    const other = new SqliteDatabase(file);
    other.pragma('busy_timeout = 0');
    t.after(async () => {
      other.close();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    });
    await sql`create table stock (id integer primary key, left integer not null)`.execute(db.kysely);
    await sql`insert into stock (id, left) values (1, 10)`.execute(db.kysely);

    let otherWrite: unknown;
    await db.kysely.transaction().execute(async (trx) => {
      const { rows } = await sql<{ left: number }>`select left from stock where id = 1`.execute(trx);
      // The other connection tries to write between this transaction's read and its write. With a
      // deferred BEGIN it would succeed, and this transaction's write would then fail with
      // SQLITE_BUSY_SNAPSHOT; with BEGIN IMMEDIATE the other connection waits (here: is refused).
      try {
        other.prepare('update stock set left = left - 1 where id = 1').run();
      } catch (err) {
        otherWrite = err;
      }
      await sql`update stock set left = ${rows[0]!.left - 2} where id = 1`.execute(trx);
    });
    assert.equal(
      (otherWrite as { code?: string } | undefined)?.code,
      'SQLITE_BUSY',
      'the other connection met the lock this transaction took at its start',
    );
    assert.deepEqual(other.prepare('select left from stock').get(), { left: 8 });
  },
);

test(
  "a request that waited past busy_timeout for another process's lock is a 503 with Retry-After, and the retry works",
  sqliteOnly,
  async (t) => {
    const app = await build(t);
    const api = await owner(app);
    const config = app.config.database;
    assert.equal(config.dialect, 'sqlite');
    const other = new SqliteDatabase(config.dialect === 'sqlite' ? config.file : '');
    t.after(() => other.close());
    // Another process holds the write lock for longer than this process waits (busy_timeout).
    other.exec('begin immediate');
    const busy = await api.post('/self/shops', { name: 'Waited' });
    other.exec('rollback');
    assertError(busy, 503, 'service_unavailable');
    assert.equal(busy.headers['retry-after'], '1');
    assert.match(busy.body.message, /locked by another process/);

    assertOk(await api.post('/self/shops', { name: 'Waited' }));
    assert.equal(assertOk(await api.get('/self/shops')).length, 1, 'the refused request changed nothing');
  },
);

test("a transaction waits for another process's lock without stopping the event loop", sqliteOnly, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-lock-'));
  const file = join(dir, 'db.sqlite');
  const db = openDatabase({ dialect: 'sqlite', file });
  const other = new SqliteDatabase(file);
  t.after(async () => {
    other.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`create table stock (id integer primary key, left integer not null)`.execute(db.kysely);
  await sql`insert into stock (id, left) values (1, 10)`.execute(db.kysely);

  // Another process holds the write lock, and lets it go only from a timer of this process: a
  // wait that held the event loop (a synchronous busy handler) would never see it go, and fail
  // with SQLITE_BUSY once busy_timeout is over.
  other.exec('begin immediate');
  const written = db.kysely
    .transaction()
    .execute((trx) => sql`update stock set left = left - 1 where id = 1`.execute(trx));
  setTimeout(() => other.exec('commit'), 50);
  await written;
  assert.deepEqual(other.prepare('select left from stock').get(), { left: 9 });
  assert.equal(
    (await sql<{ timeout: number }>`pragma busy_timeout`.execute(db.kysely)).rows[0]!.timeout,
    5000,
    'single statements keep the busy handler',
  );
});

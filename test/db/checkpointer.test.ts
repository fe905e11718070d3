import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { Checkpointer } from '../../src/db/checkpointer.js';
import { openDatabase } from '../../src/db/database.js';

function walDatabase(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-wal-'));
  const file = join(dir, 'db.sqlite');
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('create table t (id integer primary key, v text not null)');
  t.after(() => {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const insert = sqlite.transaction((rows: number) => {
    const statement = sqlite.prepare('insert into t (v) values (?)');
    for (let i = 0; i < rows; i++) statement.run('x'.repeat(500));
  });
  return { file, sqlite, insert: (rows: number) => insert(rows) };
}

/** The WAL as SQLite reports it: frames since it last started over, and those of them copied back. */
const walState = (sqlite: SqliteDatabase.Database) => (sqlite.pragma('wal_checkpoint(NOOP)') as unknown as { log: number; checkpointed: number }[])[0]!;
const walFrames = (sqlite: SqliteDatabase.Database) => walState(sqlite).log;
/** Frames in the WAL that are not yet in the database file. */
const pendingFrames = (sqlite: SqliteDatabase.Database) => {
  const { log, checkpointed } = walState(sqlite);
  return log - checkpointed;
};

test('the main connection never checkpoints; the worker thread does, once the WAL has grown and something was written', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const checkpointer = new Checkpointer(sqlite, file, { intervalMs: 20, thresholdBytes: 256 * 1024 });
  t.after(() => checkpointer.close());
  assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);

  // Far past SQLite's own 1000-page threshold: nothing is copied back by the committing connection.
  insert(12_000);
  assert.ok(statSync(`${file}-wal`).size > 4 * 1024 * 1024);
  assert.ok(pendingFrames(sqlite) > 1000, 'the commits left every frame in the WAL');

  // Nothing is written: a big WAL alone starts nothing. A write: the next tick checkpoints it.
  await sleep(100);
  assert.equal(checkpointer.checkpoints, 0);
  checkpointer.noteWrite();
  for (let i = 0; i < 100 && checkpointer.checkpoints === 0; i++) await sleep(20);
  assert.equal(checkpointer.checkpoints, 1);
  assert.equal(pendingFrames(sqlite), 0, 'the worker copied every frame into the database file');
  assert.deepEqual(sqlite.prepare('select count(*) as n from t').get(), { n: 12_000 });
});

test('a WAL under the threshold is left alone, and a failed thread hands checkpoints back to SQLite', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const checkpointer = new Checkpointer(sqlite, file, { intervalMs: 20, thresholdBytes: 64 * 1024 * 1024 });
  insert(100);
  checkpointer.noteWrite();
  await sleep(100);
  assert.equal(checkpointer.checkpoints, 0);

  await checkpointer.checkpointNow();
  assert.equal(pendingFrames(sqlite), 0);
  // The thread dies: the main connection checkpoints automatically again.
  await (checkpointer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
  await sleep(20);
  assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 1000);
  await checkpointer.close();
});

/** A hold of the main connection as Kysely's would be: the writers below check `held` before each write. */
function holder() {
  const state = { held: false, holds: 0 };
  const hold = async (fn: () => Promise<void>) => {
    state.held = true;
    state.holds++;
    try {
      await fn();
    } finally {
      state.held = false;
    }
  };
  return { state, hold };
}

test('once the WAL holds more than the limit, a checkpoint under a hold of the main connection starts it over', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const checkpointer = new Checkpointer(sqlite, file, { intervalMs: 20, thresholdBytes: 256 * 1024, limitBytes: 1024 * 1024 });
  t.after(() => checkpointer.close());
  const { state, hold } = holder();
  checkpointer.holdWith(hold);

  insert(12_000);
  checkpointer.noteWrite();
  for (let i = 0; i < 200 && checkpointer.restarts === 0; i++) await sleep(20);
  assert.equal(checkpointer.restarts, 1);
  assert.equal(state.holds, 1, 'the RESTART checkpoint ran inside one hold');
  assert.equal(pendingFrames(sqlite), 0);
  assert.deepEqual(sqlite.prepare('select count(*) as n from t').get(), { n: 12_000 });
  insert(10);
  assert.ok(walFrames(sqlite) < 100, 'the next commit wrote the WAL from its start');

  // Under the limit again: PASSIVE checkpoints only, no hold.
  insert(1_000);
  checkpointer.noteWrite();
  const before = checkpointer.checkpoints;
  for (let i = 0; i < 100 && checkpointer.checkpoints === before; i++) await sleep(20);
  assert.equal(state.holds, 1);
});

test('under writes that never pause the WAL stays bounded', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const limit = 1024 * 1024;
  const checkpointer = new Checkpointer(sqlite, file, { intervalMs: 20, thresholdBytes: 256 * 1024, limitBytes: limit });
  t.after(() => checkpointer.close());
  const { state, hold } = holder();
  checkpointer.holdWith(hold);

  // 15 MB in commits of 10 KB, a millisecond apart at most: each PASSIVE checkpoint leaves the
  // commits made while it ran, so without the RESTART under a hold the WAL file grows by
  // everything written (measured: 16 MB); with it, to 2.4 MB at most.
  let largest = 0;
  let written = 0;
  while (written < 30_000) {
    if (!state.held) {
      insert(20);
      written += 20;
      checkpointer.noteWrite();
    }
    largest = Math.max(largest, statSync(`${file}-wal`).size);
    await sleep(1);
  }
  assert.ok(checkpointer.restarts > 0, 'the WAL started over at least once');
  assert.ok(largest < 4 * limit, `the WAL stayed under ${4 * limit} bytes (largest ${largest}, ${written} rows written)`);
  assert.deepEqual(sqlite.prepare('select count(*) as n from t').get(), { n: written });
});

test('the app\'s connection is held for a RESTART checkpoint: its statements wait and none fails as busy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-wal-'));
  const db = openDatabase({ dialect: 'sqlite', file: join(dir, 'db.sqlite') }, { checkpoint: { intervalMs: 20, thresholdBytes: 256 * 1024, limitBytes: 1024 * 1024 } });
  t.after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`create table t (id integer primary key, v text not null)`.execute(db.kysely);
  let written = 0;
  const until = Date.now() + 1500;
  while (Date.now() < until) {
    await db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 20; i++) await sql`insert into t (v) values (${'x'.repeat(500)})`.execute(trx);
    });
    written += 20;
    const [row] = (await sql<{ n: number }>`select count(*) as n from t`.execute(db.kysely)).rows;
    assert.equal(row!.n, written);
    await sleep(1); // as a server between requests: timers run (Kysely's SQLite calls alone never leave the microtask queue)
  }
  assert.ok(db.checkpointer!.restarts > 0, 'the WAL started over under a hold of the Kysely connection');
});

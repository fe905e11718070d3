import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { Checkpointer } from '../../src/db/checkpointer.js';
import { openDatabase } from '../../src/db/database.js';
import { waitUntil } from '../helpers/wait.js';

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
const walState = (sqlite: SqliteDatabase.Database) =>
  (sqlite.pragma('wal_checkpoint(NOOP)') as unknown as { log: number; checkpointed: number }[])[0]!;
const walFrames = (sqlite: SqliteDatabase.Database) => walState(sqlite).log;
/** Frames in the WAL that are not yet in the database file. */
const pendingFrames = (sqlite: SqliteDatabase.Database) => {
  const { log, checkpointed } = walState(sqlite);
  return log - checkpointed;
};

test('the main connection never checkpoints; the worker thread does, once the WAL has grown and something was written', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const checkpointer = new Checkpointer(sqlite, file, { schedule: false, thresholdBytes: 256 * 1024 });
  t.after(() => checkpointer.close());
  assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);

  // Far past SQLite's own 1000-page threshold: nothing is copied back by the committing connection.
  insert(12_000);
  assert.ok(statSync(`${file}-wal`).size > 4 * 1024 * 1024);
  assert.ok(pendingFrames(sqlite) > 1000, 'the commits left every frame in the WAL');

  // Nothing is written: a big WAL alone starts nothing. A write: the next tick checkpoints it.
  await checkpointer.runOnce();
  assert.equal(checkpointer.checkpoints, 0);
  checkpointer.noteWrite();
  await checkpointer.runOnce();
  assert.equal(checkpointer.checkpoints, 1);
  assert.equal(pendingFrames(sqlite), 0, 'the worker copied every frame into the database file');
  assert.deepEqual(sqlite.prepare('select count(*) as n from t').get(), { n: 12_000 });
});

test('the timer runs the ticks on its own', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const checkpointer = new Checkpointer(sqlite, file, { intervalMs: 20, thresholdBytes: 256 * 1024 });
  t.after(() => checkpointer.close());
  insert(2_000);
  checkpointer.noteWrite();
  await waitUntil(() => checkpointer.checkpoints > 0, 'a checkpoint by the timer');
  assert.equal(pendingFrames(sqlite), 0);
});

test('a WAL under the threshold is left alone, and a failed thread hands checkpoints back to SQLite', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const checkpointer = new Checkpointer(sqlite, file, { schedule: false, thresholdBytes: 64 * 1024 * 1024 });
  insert(100);
  checkpointer.noteWrite();
  await checkpointer.runOnce();
  assert.equal(checkpointer.checkpoints, 0);

  await checkpointer.checkpointNow();
  assert.equal(pendingFrames(sqlite), 0);
  // The thread dies: the main connection checkpoints automatically again (its exit listener has
  // run by the time terminate() resolves).
  await (checkpointer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
  assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 1000);
  await checkpointer.close();
});

/**
 * A hold of the main connection as Kysely's would be: the writers below check `held` before each
 * write; `onHold` ends what the main connection had in flight (the hold waits for it).
 */
function holder(onHold: () => void = () => {}) {
  const state = { held: false, holds: 0 };
  const hold = async (fn: () => Promise<void>) => {
    state.held = true;
    state.holds++;
    onHold();
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
  const checkpointer = new Checkpointer(sqlite, file, {
    schedule: false,
    thresholdBytes: 256 * 1024,
    limitBytes: 1024 * 1024,
  });
  t.after(() => checkpointer.close());
  const { state, hold } = holder();
  checkpointer.holdWith(hold);

  insert(12_000);
  checkpointer.noteWrite();
  await checkpointer.runOnce();
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
  await checkpointer.runOnce();
  assert.equal(checkpointer.checkpoints, before + 1);
  assert.equal(state.holds, 1);
});

test('under writes that never pause the WAL stays bounded', async (t) => {
  const { file, sqlite, insert } = walDatabase(t);
  const limit = 1024 * 1024;
  const checkpointer = new Checkpointer(sqlite, file, {
    schedule: false,
    thresholdBytes: 256 * 1024,
    limitBytes: limit,
  });
  t.after(() => checkpointer.close());
  // Under sustained checkouts, the commits made while a PASSIVE checkpoint runs are left over,
  // so the WAL is never all copied back and SQLite never starts it over. Here that is made
  // exact: a read whose snapshot predates each batch keeps that batch from the checkpoint, as
  // commits landing during it would. The hold ends the read, as it waits for the main
  // connection's statement in flight.
  const reader = new SqliteDatabase(file);
  t.after(() => reader.close());
  const endRead = () => {
    if (reader.inTransaction) reader.exec('commit');
  };
  const { state, hold } = holder(endRead);
  checkpointer.holdWith(hold);

  // 15 MB in commits of 50 KB, each left over by the checkpoint after it: without the RESTART
  // under a hold the WAL file grows by everything written; with it, to the limit and a batch.
  let largest = 0;
  let written = 0;
  while (written < 30_000) {
    reader.exec('begin');
    reader.prepare('select count(*) from t').get();
    insert(100);
    written += 100;
    checkpointer.noteWrite();
    await checkpointer.runOnce();
    endRead();
    largest = Math.max(largest, statSync(`${file}-wal`).size);
  }
  assert.ok(checkpointer.restarts > 0, 'the WAL started over at least once');
  assert.equal(state.holds, checkpointer.restarts, 'each hold started the WAL over');
  assert.ok(
    largest < 2 * limit,
    `the WAL stayed under ${2 * limit} bytes (largest ${largest}, ${written} rows written)`,
  );
  assert.deepEqual(sqlite.prepare('select count(*) as n from t').get(), { n: written });
});

test("the app's connection is held for a RESTART checkpoint: its statements wait and none fails as busy", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-wal-'));
  const file = join(dir, 'db.sqlite');
  const db = openDatabase(
    { dialect: 'sqlite', file },
    { readerThread: false, checkpoint: { schedule: false, thresholdBytes: 256 * 1024, limitBytes: 1024 * 1024 } },
  );
  const observer = new SqliteDatabase(file);
  t.after(async () => {
    observer.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`create table t (id integer primary key, v text not null)`.execute(db.kysely);
  let written = 0;
  const write = async () => {
    await db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 20; i++) await sql`insert into t (v) values (${'x'.repeat(500)})`.execute(trx);
    });
    written += 20;
    const [row] = (await sql<{ n: number }>`select count(*) as n from t`.execute(db.kysely)).rows;
    assert.equal(row!.n, written);
  };
  // 2 MB of rows: past the limit, so the next tick checkpoints under a hold of the Kysely connection.
  while (written < 4_000) await write();
  assert.ok(walFrames(observer) * 4096 > 1024 * 1024);

  // The app goes on writing while the tick runs: its statements queue behind the hold and succeed.
  let ticking = true;
  const tick = db.checkpointer!.runOnce().finally(() => (ticking = false));
  let during = 0;
  while (ticking) {
    await write();
    during++;
    await new Promise((resolve) => setImmediate(resolve)); // as a server between requests: the tick's messages come in
  }
  await tick;
  assert.equal(db.checkpointer!.restarts, 1, 'the WAL started over under a hold of the Kysely connection');
  t.diagnostic(`${during} transactions issued while the tick ran`);
  await write();
  assert.ok(walFrames(observer) < 100, 'the next commit wrote the WAL from its start');
});

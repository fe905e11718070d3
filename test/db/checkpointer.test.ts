import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Checkpointer } from '../../src/db/checkpointer.js';

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

/** Frames in the WAL that are not yet in the database file, as SQLite reports them. */
const pendingFrames = (sqlite: SqliteDatabase.Database) => {
  const [r] = sqlite.pragma('wal_checkpoint(NOOP)') as unknown as { log: number; checkpointed: number }[];
  return r!.log - r!.checkpointed;
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

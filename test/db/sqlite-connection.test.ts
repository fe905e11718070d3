import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, SQLITE_JOURNAL_SIZE_LIMIT } from '../../src/db/database.js';
import { build, engine } from '../helpers/build.js';

const sqliteOnly = { skip: engine !== 'sqlite' && 'the SQLite connection: SQLite only' };

test(
  "the app's SQLite connection: WAL, synchronous NORMAL, SQLite's own checkpoints, a bounded journal",
  sqliteOnly,
  async (t) => {
    const app = await build(t);
    const pragma = async (name: string) =>
      Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(app.db.kysely)).rows[0]!)[0];
    assert.equal(await pragma('journal_mode'), 'wal');
    assert.equal(await pragma('synchronous'), 1, 'NORMAL');
    assert.equal(await pragma('wal_autocheckpoint'), 1000, "SQLite's default: the committing connection checkpoints");
    assert.equal(await pragma('journal_size_limit'), SQLITE_JOURNAL_SIZE_LIMIT);
    assert.equal(await pragma('foreign_keys'), 1);
    assert.equal(await pragma('busy_timeout'), 5000);
    assert.equal(await pragma('cache_size'), -65536);
  },
);

test('the WAL stays bounded under sustained writes: each checkpoint starts it over', sqliteOnly, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-wal-'));
  const file = join(dir, 'db.sqlite');
  const db = openDatabase({ dialect: 'sqlite', file });
  t.after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`create table t (id integer primary key, v text not null)`.execute(db.kysely);
  const pageSize = Number((await sql<{ page_size: number }>`pragma page_size`.execute(db.kysely)).rows[0]!.page_size);
  // 240 transactions of ~100 KB each: six times what SQLite lets into the WAL before it checkpoints
  // (1000 pages). Without those checkpoints (the old checkpointer turned them off) the WAL would
  // hold every one of them.
  const value = 'x'.repeat(1000);
  let largest = 0;
  for (let i = 0; i < 240; i++) {
    await db.kysely.transaction().execute(async (trx) => {
      for (let row = 0; row < 100; row++) await sql`insert into t (v) values (${value})`.execute(trx);
    });
    largest = Math.max(largest, statSync(`${file}-wal`).size);
  }
  const written = 240 * 100 * value.length;
  // What a WAL reaches before its checkpoint, and the transaction that pushes it past it.
  const bound = (1000 + 200) * (pageSize + 24);
  assert.ok(largest <= bound, `the WAL file reached ${largest} bytes (bound ${bound}; ${written} written)`);
  assert.ok(largest <= SQLITE_JOURNAL_SIZE_LIMIT);
  const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db.kysely);
  assert.equal(rows[0]!.n, 24_000);
});

test('the connection is taken once per turn of the event loop, first come first served', sqliteOnly, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-turns-'));
  const db = openDatabase({ dialect: 'sqlite', file: join(dir, 'db.sqlite') });
  t.after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`create table seen (n integer not null)`.execute(db.kysely);
  // A turn counter: the check phase of every turn advances it (started before the queries, so in
  // each turn it runs before the driver's own hand-over).
  let turn = 0;
  let counting = true;
  const tick = () => {
    turn++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  const turns: number[] = [];
  const order: number[] = [];
  // Six requests asking at once, as six buyers' statements read in one turn would.
  await Promise.all(
    [0, 1, 2, 3, 4, 5].map(async (n) => {
      await sql`insert into seen (n) values (${n})`.execute(db.kysely);
      turns[n] = turn;
      order.push(n);
    }),
  );
  // A transaction holds it for all its statements, and still counts as one taking.
  await db.kysely.transaction().execute(async (trx) => {
    const before = turn;
    for (let i = 0; i < 3; i++) await sql`insert into seen (n) values (${10 + i})`.execute(trx);
    assert.equal(turn, before, 'a transaction runs its statements without giving the connection up');
  });
  counting = false;
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5], 'in the order they asked');
  // Without the hand-over all six ran in the first turn, and under load a turn served every
  // waiting connection to the end while the loop accepted one new connection per turn.
  for (let n = 1; n < 6; n++)
    assert.ok(turns[n]! > turns[n - 1]!, `statement ${n} ran a turn after ${n - 1}: ${turns}`);
  const { rows } = await sql<{ c: number }>`select count(*) as c from seen`.execute(db.kysely);
  assert.equal(rows[0]!.c, 9);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { heavyRead } from '../../src/db/reader-pool.js';
import { build, engine, owner } from '../helpers/build.js';
import { createShop } from '../helpers/factories.js';

test('heavy reads run on their own connection (the SQLite reader thread, one PostgreSQL connection), see every committed write, and run inside transactions as they are', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Reader');
  const db = app.db.kysely;
  const mainThread: string[] = [];
  const stop = app.db.observeQueries((e) => mainThread.push(e.sql));
  t.after(stop);

  const query = () => db.selectFrom('shops').select(['id', 'name']).where('id', '=', shop.id);
  assert.deepEqual(await heavyRead(db, query()), [{ id: shop.id, name: 'Reader' }]);
  assert.equal(mainThread.filter((text) => text.includes('"shops"')).length, 0, 'the main connection did not run it');

  // A write committed on the main connection is visible to the next heavy read.
  await db.updateTable('shops').set({ name: 'Renamed' }).where('id', '=', shop.id).execute();
  assert.equal((await heavyRead(db, query()))[0]!.name, 'Renamed');

  // Inside a transaction the read sees the transaction's own uncommitted writes.
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('shops').set({ name: 'In flight' }).where('id', '=', shop.id).execute();
    const rows = await heavyRead(trx, trx.selectFrom('shops').select('name').where('id', '=', shop.id));
    assert.equal(rows[0]!.name, 'In flight');
  });

  // Errors come back as errors, with the driver's code.
  await assert.rejects(
    heavyRead(db, db.selectFrom('no_such_table' as 'shops').selectAll()),
    /no_such_table|does not exist/,
  );
});

test('PostgreSQL heavy reads share one read-only connection without parallel workers', {
  skip: engine !== 'postgres' && 'PostgreSQL only',
}, async (t) => {
  const app = await build(t);
  const db = app.db.kysely;
  const pid = () => heavyRead(db, db.selectNoFrom(sql<number>`pg_backend_pid()`.as('pid')));
  const [[first], [second], [main]] = await Promise.all([
    pid(),
    pid(),
    db.selectNoFrom(sql<number>`pg_backend_pid()`.as('pid')).execute(),
  ]);
  assert.equal(first!.pid, second!.pid, 'two concurrent heavy reads ran on one connection');
  assert.notEqual(first!.pid, main!.pid, 'not on a connection of the main pool');
  const [settings] = await heavyRead(
    db,
    db.selectNoFrom([
      sql<string>`current_setting('max_parallel_workers_per_gather')`.as('workers'),
      sql<string>`current_setting('transaction_read_only')`.as('readOnly'),
    ]),
  );
  assert.deepEqual(settings, { workers: '0', readOnly: 'on' });
});

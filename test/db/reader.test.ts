import assert from 'node:assert/strict';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { heavyRead } from '../../src/db/reader.js';
import type { Database } from '../../src/db/schema.js';
import { build, engine, owner } from '../helpers/build.js';
import { assertOk, createShop } from '../helpers/factories.js';

/**
 * Searches of the owner lists run on the reader thread on SQLite (src/db/reader.ts): the main
 * connection, whose statements block the event loop, never runs them. observeQueries sees every
 * statement of the main connection, so a search's absence there is the proof, whatever the
 * machine's speed.
 */
test('customer and invoice searches answer from the reader thread, never the main connection', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Searched');
  const db = app.db.kysely;
  for (const [i, email] of ['zq.one@example.com', 'other@example.com', 'ZQ.two@example.org'].entries()) {
    await db
      .insertInto('customers')
      .values({ shop_id: shop.id, email, referral_code: `code${i}`, created_at: i + 1, updated_at: i + 1 })
      .execute();
  }
  const seen: string[] = [];
  const stop = app.db.observeQueries((event) => seen.push(event.sql));
  t.after(stop);

  for (const search of ['zq', 'zq.', 'example.org']) {
    const page = assertOk(await api.get(`/self/${shop.id}/customers?searchString=${encodeURIComponent(search)}`));
    const expected = ['zq.one@example.com', 'ZQ.two@example.org'].filter((e) => e.toLowerCase().includes(search));
    assert.deepEqual(page.items.map((c: { email: string }) => c.email).sort(), expected.sort(), search);
    assert.equal(page.totalCount, expected.length, search);
  }
  const invoices = assertOk(await api.get(`/self/${shop.id}/invoices?searchString=zq`));
  assert.equal(invoices.totalCount, 0);

  const onMain = seen.filter((s) => /from "(customers|invoices)"/.test(s) && /like|match/i.test(s));
  if (engine === 'sqlite') {
    assert.ok(app.db.reader, 'a SQLite database on a file has a reader');
    assert.deepEqual(onMain, [], 'no search ran on the main connection');
  } else {
    assert.equal(app.db.reader, null, 'PostgreSQL reads without blocking the event loop: no reader thread');
    assert.ok(onMain.length >= 2, 'on PostgreSQL searches run on the pool');
  }
});

test('a heavy read inside a transaction runs on the transaction, which alone sees its own writes', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Tx');
  const db = app.db.kysely;
  const found = await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('customers')
      .values({ shop_id: shop.id, email: 'inside@tx.example', referral_code: 'tx1', created_at: 1, updated_at: 1 })
      .execute();
    return heavyRead(trx, trx.selectFrom('customers').select('email').where('shop_id', '=', shop.id));
  });
  assert.deepEqual(found, [{ email: 'inside@tx.example' }]);
});

test('a Kysely instance openDatabase did not make is refused, rather than quietly read on the event loop', async () => {
  const stray = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });
  try {
    assert.throws(() => heavyRead(stray, stray.selectFrom('shops').selectAll()), /pass the Kysely instance/);
  } finally {
    await stray.destroy();
  }
});

test("an error on the reader thread is the read's error; the thread goes on serving", {
  skip: engine !== 'sqlite',
}, async (t) => {
  const app = await build(t);
  const reader = app.db.reader!;
  await assert.rejects(reader.rows(CompiledQuery.raw('select * from no_such_table')), /no such table/);
  const rows = await reader.rows(CompiledQuery.raw('select 1 as one') as CompiledQuery<{ one: number }>);
  assert.deepEqual(rows, [{ one: 1 }]);
});

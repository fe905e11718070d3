import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { prepared } from '../../src/db/prepared.js';
import { build, engine, owner } from '../helpers/build.js';
import { createShop } from '../helpers/factories.js';

test('a prepared query is compiled once and runs with each call’s own values, in and out of transactions', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const [first, second] = [await createShop(api, 'First'), await createShop(api, 'Second')];
  const db = app.db.kysely;
  const seen: string[] = [];
  t.after(app.db.observeQueries((e) => seen.push(e.sql)));
  const now = Date.now();
  for (const [shop, question] of [
    [first, 'Shipping?'],
    [second, 'Refunds?'],
    [second, 'Keys?'],
  ] as const) {
    await db
      .insertInto('faqs')
      .values({ shop_id: shop.id, question, answer: 'A', position: 0, created_at: now, updated_at: now })
      .execute();
  }
  let builds = 0;
  const questions = prepared((conn, p: { shopId: number; prefix: string }) => {
    builds++;
    return conn
      .selectFrom('faqs')
      .select(['shop_id', 'question'])
      .where('shop_id', '=', p.shopId)
      .where(sql<boolean>`substr(question, 1, 1) = ${p.prefix}`)
      .orderBy('question');
  });

  assert.deepEqual(await questions(db, { shopId: first.id, prefix: 'S' }), [
    { shop_id: first.id, question: 'Shipping?' },
  ]);
  // The same query for another shop answers that shop's rows: no value of the first call stays in it.
  assert.deepEqual(await questions(db, { shopId: second.id, prefix: 'K' }), [
    { shop_id: second.id, question: 'Keys?' },
  ]);
  assert.deepEqual(await questions(db, { shopId: second.id, prefix: 'S' }), []);
  const inTransaction = await db.transaction().execute((trx) => questions(trx, { shopId: second.id, prefix: 'R' }));
  assert.deepEqual(inTransaction, [{ shop_id: second.id, question: 'Refunds?' }]);
  assert.equal(builds, 1, 'built once for the engine');
  assert.equal(new Set(seen.filter((s) => s.includes('substr(question'))).size, 1, 'one SQL text');

  // A value left out is an error, not a null bound in its place.
  await assert.rejects(
    questions(db, { shopId: first.id } as never),
    (err: unknown) => err instanceof TypeError && /no value for prefix/.test(err.message),
  );
});

test('SQLite rows built from raw arrays equal better-sqlite3’s own row objects', {
  skip: engine !== 'sqlite',
}, async (t) => {
  const app = await build(t);
  const db = app.db.kysely;
  const reference = new Database(':memory:');
  t.after(() => reference.close());
  for (const text of [
    `select 1 as a, 'two' as b, x'0102' as c, null as d, 2.5 as e, 3 as a`,
    `select 4 as "__proto__", 'constructor' as "constructor", 5 as "0", 6 as "a b", 7 as "x""y"`,
  ]) {
    const { rows } = await sql.raw<Record<string, unknown>>(text).execute(db);
    const expected = reference.prepare(text).all() as Record<string, unknown>[];
    assert.deepStrictEqual(rows, expected, text);
    assert.equal(Object.getPrototypeOf(rows[0]), Object.getPrototypeOf(expected[0]), text);
    assert.deepEqual(Object.keys(rows[0]!), Object.keys(expected[0]!), text);
  }
  // Writes still run as writes; RETURNING answers rows.
  const { rows: inserted } = await sql<{
    id: number;
    name: string;
  }>`insert into accounts (email, created_at) values ('rows@example.com', 1) returning id, email as name`.execute(db);
  assert.equal(inserted[0]!.name, 'rows@example.com');
  assert.equal(typeof inserted[0]!.id, 'number');
});

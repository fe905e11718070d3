import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { constraintViolation } from '../../src/db/database.js';
import { heavyWrite } from '../../src/db/heavy-write.js';
import { build, engine, owner } from '../helpers/build.js';
import { createShop } from '../helpers/factories.js';

test('a heavy write runs as one transaction, off the main connection on SQLite, while other statements wait for it', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Writer');
  const db = app.db.kysely;
  const mainThread: string[] = [];
  const stop = app.db.observeQueries((e) => mainThread.push(e.sql));
  t.after(stop);
  const faqs = () => db.selectFrom('faqs').select(['question']).where('shop_id', '=', shop.id).orderBy('id');
  const faq = (question: string) =>
    db
      .insertInto('faqs')
      .values({ shop_id: shop.id, question, answer: 'A', position: 0, created_at: 1, updated_at: 1 })
      .compile();

  // A statement slow enough to be in flight while the read below is issued: many answers built in SQL.
  const many = sql`insert into faqs (shop_id, question, answer, position, created_at, updated_at)
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
    select ${shop.id}, 'Q' || i, 'A', i, 1, 1 from n`.compile(db);
  const write = heavyWrite(db, [faq('First'), many]);
  const read = faqs().execute();
  await write;
  // SQLite: the read waited for the write's connection and sees all of it. PostgreSQL: it ran on
  // another connection, beside the write, and sees all of it or none of it.
  const seen = (await read).length;
  if (engine === 'sqlite') assert.equal(seen, 20001, 'the read issued during the write waited for it');
  else assert.ok(seen === 0 || seen === 20001, `all or nothing, saw ${seen}`);
  assert.equal((await faqs().execute()).length, 20001);
  const ranHere = mainThread.some((s) => s.includes('with recursive'));
  assert.equal(
    ranHere,
    engine === 'postgres',
    engine === 'sqlite' ? 'the writer thread ran it' : 'PostgreSQL runs it as any transaction',
  );

  // All or nothing: a failing statement rolls back the ones before it, and its error keeps the driver's code.
  const failed = await heavyWrite(db, [
    faq('Rolled back'),
    db
      .insertInto('shops')
      .values({ id: shop.id } as never)
      .compile(),
  ]).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(constraintViolation(failed) !== undefined, `a constraint violation, got ${String(failed)}`);
  assert.equal((await faqs().where('question', '=', 'Rolled back').execute()).length, 0);

  // Inside a transaction the statements join it: rolled back with it.
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await heavyWrite(trx, [faq('In a transaction')]);
      assert.equal(
        (await trx.selectFrom('faqs').select('id').where('question', '=', 'In a transaction').execute()).length,
        1,
      );
      throw new Error('abort');
    }),
    /abort/,
  );
  assert.equal((await faqs().where('question', '=', 'In a transaction').execute()).length, 0);
});

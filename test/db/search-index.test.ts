import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { containsText, searchText } from '../../src/db/sql-helpers.js';
import { build, engine, owner } from '../helpers/build.js';
import { createShop } from '../helpers/factories.js';

const EMAILS = [
  'Bob.Smith@Example.com',
  'ann_lee@example.org',
  'carol%sale@shop.example',
  'dave"quoted"@example.net',
  'erin@exAMPLE.COM',
  'frank@elsewhere.io',
  'ab@x.io',
];

/** Two shops with the same customers: a search must never answer the other shop's. */
async function customers(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const db = app.db.kysely;
  const [shop, other] = [await createShop(api, 'Searched'), await createShop(api, 'Other')];
  let code = 0;
  for (const shopId of [shop.id, other.id]) {
    for (const email of EMAILS) {
      await db
        .insertInto('customers')
        .values({ shop_id: shopId, email, referral_code: `code${code++}`, created_at: 1, updated_at: 1 })
        .execute();
    }
  }
  const emails = async (match: (text: string) => ReturnType<typeof containsText>, text: string) =>
    (
      await db
        .selectFrom('customers')
        .select('email')
        .where('shop_id', '=', shop.id)
        .where(match(text))
        .orderBy('id')
        .execute()
    ).map((r) => r.email);
  const search = (text: string) => emails((s) => searchText(db, 'customers', 'customers', ['email'], s), text);
  const scan = (text: string) => emails((s) => containsText('customers.email', s), text);
  return { db, shop, search, scan };
}

test('a search through the index answers what a scan answers: case-insensitive substrings, wildcards and quotes literal, short texts too', async (t) => {
  const { search, scan } = await customers(t);
  const texts = [
    'example',
    'EXAMPLE.COM',
    'bob.',
    'n_l',
    '%sa',
    '_',
    '%',
    '"quoted"',
    'e"@',
    'ab',
    'b',
    '@x.',
    'nowhere',
  ];
  for (const text of texts) assert.deepEqual(await search(text), await scan(text), `searching ${JSON.stringify(text)}`);
  assert.deepEqual(await search('example.com'), ['Bob.Smith@Example.com', 'erin@exAMPLE.COM']);
  assert.deepEqual(await search('n_l'), ['ann_lee@example.org'], 'an underscore is no wildcard');
  assert.deepEqual(await search('%'), ['carol%sale@shop.example'], 'a percent sign is no wildcard');
  assert.deepEqual(await search('ab'), ['ab@x.io'], 'two characters: no trigram, a scan of the shop');
  assert.deepEqual(await search('nowhere'), []);
});

test('the search index follows inserts, changes and deletes in their transaction', async (t) => {
  const { db, shop, search } = await customers(t);
  const bob = await db
    .selectFrom('customers')
    .select('id')
    .where('shop_id', '=', shop.id)
    .where('email', 'like', 'Bob%')
    .executeTakeFirstOrThrow();
  await db.updateTable('customers').set({ email: 'robert@changed.example' }).where('id', '=', bob.id).execute();
  assert.deepEqual(await search('bob.smith'), [], 'the old text is no longer found');
  assert.deepEqual(await search('CHANGED'), ['robert@changed.example']);
  await db.updateTable('customers').set({ balance: 5 }).where('id', '=', bob.id).execute();
  assert.deepEqual(await search('changed'), ['robert@changed.example'], 'a change of another column keeps it');
  await db
    .transaction()
    .execute(async (trx) => {
      await trx.deleteFrom('customers').where('id', '=', bob.id).execute();
      throw new Error('rolled back');
    })
    .catch(() => undefined);
  assert.deepEqual(await search('changed'), ['robert@changed.example'], 'a rolled back delete leaves it');
  await db.deleteFrom('customers').where('id', '=', bob.id).execute();
  assert.deepEqual(await search('changed'), []);
  await db
    .insertInto('customers')
    .values({ shop_id: shop.id, email: 'new@changed.example', referral_code: 'fresh', created_at: 2, updated_at: 2 })
    .execute();
  assert.deepEqual(await search('changed'), ['new@changed.example']);
});

/** The plan of a search of every row (no shop condition, so only the search index can narrow it). */
async function planOf(db: Kysely<Database>, table: 'invoices' | 'customers' | 'feedbacks' | 'products') {
  const columns = {
    invoices: ['id', 'customer_email'],
    customers: ['email'],
    feedbacks: ['comment', 'answer', 'invoice_id'],
    products: ['title', 'path', 'short_description'],
  } as const;
  const query = db
    .selectFrom(table)
    .select('id')
    .where(searchText(db, table, table, columns[table] as never, 'needle'))
    .compile();
  if (engine === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` });
    return rows.map((r) => r.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    // An empty table costs nothing to scan: tell the planner scans are out, as on a large one.
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `explain ${query.sql}` });
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

test('searches of invoices, customers, feedbacks and products go through their trigram index', async (t) => {
  const app = await build(t);
  for (const table of ['invoices', 'customers', 'feedbacks', 'products'] as const) {
    const plan = await planOf(app.db.kysely, table);
    if (engine === 'sqlite') assert.match(plan, new RegExp(`SCAN ${table}_search VIRTUAL TABLE`), plan);
    else assert.match(plan, new RegExp(`Bitmap Index Scan on ${table}_\\w+_trgm_idx`), plan);
  }
});

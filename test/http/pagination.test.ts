import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build } from '../helpers/build.js';
import { afterKeyset, decodeCursor, encodeCursor, keysetPage, pageWindow, toPage } from '../../src/http/pagination.js';
import { ValidationError } from '../../src/http/errors.js';

test('offset pages', () => {
  assert.deepEqual(pageWindow({ pageNumber: 3, pageSize: 20 }), { limit: 20, offset: 40 });
  assert.deepEqual(toPage(['a'], 41, { pageNumber: 3, pageSize: 20 }), { items: ['a'], pageNumber: 3, pageSize: 20, totalCount: 41, totalPages: 3 });
  assert.equal(toPage([], 0, { pageNumber: 1, pageSize: 20 }).totalPages, 0);
});

test('cursors round-trip and junk cursors are a validation error', () => {
  const cursor = encodeCursor({ value: 1795000000000, id: 42 });
  assert.deepEqual(decodeCursor(cursor), { value: 1795000000000, id: 42 });
  assert.deepEqual(decodeCursor(encodeCursor({ value: 'Kéys', id: 7 }), 'string'), { value: 'Kéys', id: 7 });
  assert.throws(() => decodeCursor(cursor, 'string'), ValidationError);
  for (const junk of ['', 'abc', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('[1,-2]').toString('base64url'), Buffer.from('[1.5,2]').toString('base64url')]) {
    assert.throws(() => decodeCursor(junk), (err) => err instanceof ValidationError && err.errors[0]!.startsWith('cursor: '));
  }
});

test('keyset paging walks a real table newest first, without gaps or repeats, on both engines', async (t) => {
  const app = await build(t);
  const db = app.db.kysely;
  const account = await db.insertInto('accounts').values({ email: 'k@example.com', created_at: 1 }).returning('id').executeTakeFirstOrThrow();
  // 25 keys over 5 distinct timestamps, so ties on created_at are broken by id.
  for (let i = 0; i < 25; i++) {
    await db.insertInto('api_keys').values({ account_id: account.id, key_hash: `h${i}`, prefix: 'p', scopes: 'read', created_at: 1000 + Math.floor(i / 5) }).execute();
  }
  const seen: number[] = [];
  let cursor: string | null = null;
  const limit = 7;
  do {
    let query = db.selectFrom('api_keys').select(['id', 'created_at']).where('account_id', '=', account.id);
    if (cursor) query = query.where(afterKeyset('created_at', 'id', decodeCursor(cursor)));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
    const page = keysetPage(rows, limit, (r) => ({ value: r.created_at, id: r.id }));
    seen.push(...page.items.map((r) => r.id));
    cursor = page.nextCursor;
  } while (cursor);
  const all = await db.selectFrom('api_keys').select('id').orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  assert.deepEqual(seen, all.map((r) => r.id));
  assert.equal(new Set(seen).size, 25);
});

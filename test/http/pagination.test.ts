import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValidationError } from '../../src/http/errors.js';
import { afterKeyset, decodeCursor, encodeCursor, keysetPage, pageWindow, toPage } from '../../src/http/pagination.js';
import { build, client, owner as ownerClient } from '../helpers/build.js';
import { customerSession } from '../helpers/customer-session.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { createFixture } from '../helpers/owner-operations.js';

test('offset pages', () => {
  assert.deepEqual(pageWindow({ pageNumber: 3, pageSize: 20 }), { limit: 20, offset: 40 });
  assert.deepEqual(toPage(['a'], 41, { pageNumber: 3, pageSize: 20 }), {
    items: ['a'],
    pageNumber: 3,
    pageSize: 20,
    totalCount: 41,
    totalPages: 3,
  });
  assert.equal(toPage([], 0, { pageNumber: 1, pageSize: 20 }).totalPages, 0);
});

test('a cursor that names its order is read only in that order', () => {
  const position = { value: 1795000000000, id: 'inv_1' };
  const total = encodeCursor(position, 'total');
  assert.deepEqual(decodeCursor(total, 'number', 'string', 'total'), position);
  for (const other of ['-total', 'createdAt', undefined])
    assert.throws(() => decodeCursor(total, 'number', 'string', other), ValidationError, String(other));
  assert.throws(() => decodeCursor(encodeCursor(position), 'number', 'string', 'total'), ValidationError);
  const page = keysetPage([1, 2, 3], 2, (n) => ({ value: n, id: n }), 'price');
  assert.deepEqual(decodeCursor(page.nextCursor!, 'number', 'number', 'price'), { value: 2, id: 2 });
});

test('cursors round-trip and junk cursors are a validation error', () => {
  const cursor = encodeCursor({ value: 1795000000000, id: 42 });
  assert.deepEqual(decodeCursor(cursor), { value: 1795000000000, id: 42 });
  assert.deepEqual(decodeCursor(encodeCursor({ value: 'Kéys', id: 7 }), 'string'), { value: 'Kéys', id: 7 });
  assert.throws(() => decodeCursor(cursor, 'string'), ValidationError);
  for (const junk of [
    '',
    'abc',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('[1,-2]').toString('base64url'),
    Buffer.from('[1.5,2]').toString('base64url'),
  ]) {
    assert.throws(
      () => decodeCursor(junk),
      (err) => err instanceof ValidationError && err.errors[0]!.startsWith('cursor: '),
    );
  }
});

test('keyset paging walks a real table newest first, without gaps or repeats, on both engines', async (t) => {
  const app = await build(t);
  const db = app.db.kysely;
  const account = await db
    .insertInto('accounts')
    .values({ email: 'k@example.com', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  // 25 keys over 5 distinct timestamps, so ties on created_at are broken by id.
  for (let i = 0; i < 25; i++) {
    await db
      .insertInto('api_keys')
      .values({
        account_id: account.id,
        key_hash: `h${i}`,
        prefix: 'p',
        scopes: 'read',
        created_at: 1000 + Math.floor(i / 5),
      })
      .execute();
  }
  const seen: number[] = [];
  let cursor: string | null = null;
  const limit = 7;
  do {
    let query = db.selectFrom('api_keys').select(['id', 'created_at']).where('account_id', '=', account.id);
    if (cursor) query = query.where(afterKeyset('created_at', 'id', decodeCursor(cursor)));
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const page = keysetPage(rows, limit, (r) => ({ value: r.created_at, id: r.id }));
    seen.push(...page.items.map((r) => r.id));
    cursor = page.nextCursor;
  } while (cursor);
  const all = await db
    .selectFrom('api_keys')
    .select('id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  assert.deepEqual(
    seen,
    all.map((r) => r.id),
  );
  assert.equal(new Set(seen).size, 25);
});

/** Where a page sits in an answer's data schema: [] for a list, ['feedbacks'] for the public feedbacks page. */
function pagePath(schema: { properties?: Record<string, any> } | undefined, at: string[] = []): string[] | null {
  if (!schema?.properties) return null;
  if (schema.properties.items && schema.properties.totalPages) return at;
  for (const [name, child] of Object.entries(schema.properties)) {
    const found = pagePath(child, [...at, name]);
    if (found) return found;
  }
  return null;
}

test('every paged list, as the OpenAPI document lists them, honours PageNumber/PageSize as aliases', async (t) => {
  const app = await build(t);
  const owner = await ownerClient(app);
  const shop = await createShop(owner);
  const fixture = await createFixture(owner, shop.id);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, any>>;
  };
  const lists = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, op]) => {
      const page = pagePath(op.responses?.['200']?.content?.['application/json']?.schema?.properties?.data);
      const paged = page !== null || (op.parameters ?? []).some((p: { name: string }) => p.name === 'pageNumber');
      return paged ? [{ method: method.toUpperCase(), path, op, page: page ?? [] }] : [];
    }),
  );
  assert.ok(lists.length >= 19, `${lists.length} lists`);
  assert.ok(lists.some((l) => l.path === '/v2/public/shops/{shopId}/feedbacks'));
  assert.ok(lists.some((l) => l.path === '/self/{shopId}/webhooks/{webhookId}/deliveries'));
  assert.ok(lists.some((l) => l.path === '/v2/public/shops/{shopId}/customer'));
  for (const { method, path, op, page } of lists) {
    assert.equal(method, 'GET', path);
    for (const [alias, canonical] of [
      ['PageNumber', 'pageNumber'],
      ['PageSize', 'pageSize'],
    ]) {
      const documented = op.parameters.find((p: { name: string }) => p.name === alias);
      assert.ok(documented?.schema.deprecated, `${path} documents ${alias} as a deprecated alias`);
      assert.equal(documented.schema['x-alias-of'], canonical);
    }
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => String(fixture[name]));
    const pageOf = (body: any) => page.reduce((data, key) => data[key], body.data);
    // A list of the signed-in buyer (the customer area) is read with their session, not an owner key.
    const api =
      op.security?.some((s: Record<string, unknown>) => 'customerSession' in s) === true
        ? client(app, await customerSession(app, shop.id, 'pager@example.com'))
        : owner;
    const canonical = assertOk(await api.get(`${url}?pageSize=1&pageNumber=2`));
    const aliased = await api.get(`${url}?PageSize=1&PageNumber=2`);
    assert.deepEqual(assertOk(aliased), canonical, path);
    assert.equal(pageOf(aliased.body).pageSize, 1, path);
    assert.equal(pageOf(aliased.body).pageNumber, 2, path);
    assert.ok(pageOf(aliased.body).items.length <= 1, path);
    // The same value twice is fine; two different ones are refused rather than one winning silently.
    assert.deepEqual(assertOk(await api.get(`${url}?pageSize=1&PageSize=1&PageNumber=2`)), canonical, path);
    const conflicting = await api.get(`${url}?pageNumber=1&PageNumber=2`);
    assertError(conflicting, 400, 'validation_error');
    assert.deepEqual(conflicting.body.errors, ['PageNumber: must equal pageNumber when both are given'], path);
    const tooLarge = await api.get(`${url}?PageSize=101`);
    assertError(tooLarge, 400, 'validation_error');
    assert.deepEqual(tooLarge.body.errors, ['PageSize: must be at most 100'], path);
  }
  // A list with more than one page shows the alias pages through, not page 1 again.
  const first = assertOk(await owner.get(`/self/${shop.id}/listings?PageSize=1&PageNumber=1`));
  const second = assertOk(await owner.get(`/self/${shop.id}/listings?PageSize=1&PageNumber=2`));
  assert.ok(first.totalCount >= 2);
  assert.notDeepEqual(second.items, first.items);
});

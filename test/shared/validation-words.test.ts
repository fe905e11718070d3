import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { validationProblems } from '../../src/shared/validation-words.js';
import { build, owner } from '../helpers/build.js';
import { assertError, createShop } from '../helpers/factories.js';

/**
 * Issue 37, item 7: a problem reads in plain words beside the admin's field and in the API's
 * `errors` alike ("name: must not be empty", not "must NOT have fewer than 1 characters").
 */

test("the API's validation problems are worded for people, field first", async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const cases: [string, string, unknown, string][] = [
    ['PUT', `/self/${shop.id}/settings/name`, { newName: '' }, 'newName: must not be empty'],
    [
      'PUT',
      `/self/${shop.id}/settings/name`,
      { newName: 'x'.repeat(65) },
      'newName: must be at most 64 characters long',
    ],
    ['PUT', `/self/${shop.id}/settings/invoices`, { lifetimeMinutes: 0 }, 'lifetimeMinutes: must be at least'],
    ['GET', `/self/${shop.id}/products?pageSize=1000`, undefined, 'pageSize: must be at most 100'],
  ];
  for (const [method, url, body, expected] of cases) {
    const res = method === 'GET' ? await api.get(url) : await api.put(url, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(expected)),
      `${url}: ${JSON.stringify(res.body.errors)}`,
    );
    for (const e of res.body.errors) assert.doesNotMatch(e, /must NOT|must be [<>]=|must match/, url);
  }
});

test('each kind of schema rule has its own plain wording', () => {
  const ajv = new Ajv({ allErrors: true });
  // CommonJS with a default export: under NodeNext the function sits on .default (as in src/http/validation.ts).
  (formats as unknown as { default: (ajv: Ajv) => Ajv }).default(ajv);
  const schema = Type.Object({
    email: Type.String({ format: 'email' }),
    site: Type.String({ format: 'uri' }),
    tags: Type.Array(Type.String(), { minItems: 1, maxItems: 2, uniqueItems: true }),
    code: Type.String({ minLength: 4 }),
    price: Type.Number({ exclusiveMinimum: 0, multipleOf: 0.01 }),
    count: Type.Integer(),
    ref: Type.String({ pattern: '^[a-z]+$' }),
  });
  const check = ajv.compile(schema);
  check({ email: 'nope', site: 'x', tags: [], code: 'abc', price: 0, count: 1.5, ref: 'A1' });
  assert.deepEqual(
    validationProblems(check.errors).map((p) => `${p.path}: ${p.message}`),
    [
      'email: must be an e-mail address',
      'site: must be a full web address (https://…)',
      'tags: needs at least one entry',
      'code: must be at least 4 characters long',
      'price: must be more than 0',
      'count: must be integer',
      'ref: is not in the accepted form',
    ],
  );
  check({
    email: 'a@example.com',
    site: 'https://example.com',
    tags: ['a', 'a', 'b'],
    code: 'abcd',
    price: 1.005,
    count: 1,
    ref: 'a',
  });
  assert.deepEqual(
    validationProblems(check.errors).map((p) => `${p.path}: ${p.message}`),
    [
      'tags: may have at most 2 entries',
      'tags: must not list the same entry twice',
      'price: must be a multiple of 0.01',
    ],
  );
});

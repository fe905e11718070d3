import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { createFixture } from '../helpers/owner-operations.js';

/**
 * Issue 19 item 17, the cases it names: the document says what the validation enforces. The
 * document-driven fuzz test (openapi-fuzz.test.ts) covers every operation; these pin the
 * reported ones down.
 */
type Node = Record<string, any>;

/** Every schema node of the document's requests, with where it is. */
function* requestSchemas(doc: Node): Generator<[string, Node]> {
  function* walk(at: string, node: unknown): Generator<[string, Node]> {
    if (Array.isArray(node)) for (const [i, n] of node.entries()) yield* walk(`${at}[${i}]`, n);
    else if (node && typeof node === 'object') {
      yield [at, node as Node];
      for (const [k, v] of Object.entries(node)) yield* walk(`${at}.${k}`, v);
    }
  }
  for (const [path, methods] of Object.entries<Node>(doc.paths)) {
    for (const [method, op] of Object.entries<Node>(methods)) {
      yield* walk(`${method} ${path} body`, op.requestBody?.content?.['application/json']?.schema);
      for (const p of op.parameters ?? []) yield* walk(`${method} ${path} ${p.name}`, p.schema);
    }
  }
}

test('the document states the limits and forms the server enforces: names, e-mails, dates, product types', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const body = (path: string, method = 'put') => doc.paths[path][method].requestBody.content['application/json'].schema;

  // Shop names: 64 characters, said and enforced.
  assert.equal(body('/self/shops', 'post').properties.name.maxLength, 64);
  assert.equal(body('/self/{shopId}/settings/name').properties.newName.maxLength, 64);
  const shop = await createShop(api, 'n'.repeat(64));
  assertError(await api.put(`/self/${shop.id}/settings/name`, { newName: 'n'.repeat(65) }), 400, 'validation_error');
  assertError(await api.put(`/self/${shop.id}/settings/name`, { newName: '   ' }), 400, 'validation_error');

  // One e-mail form everywhere, and it refuses 0@com.
  const emails = [...requestSchemas(doc)].filter(([, n]) => n.format === 'email');
  assert.ok(emails.length >= 5, `e-mail fields: ${emails.map(([at]) => at).join(', ')}`);
  const patterns = new Set(emails.map(([, n]) => n.pattern));
  assert.equal(patterns.size, 1, 'every e-mail field has the same pattern');
  const email = new RegExp([...patterns][0], 'u');
  assert.ok(email.test('Buyer.Name+tag@example.co.uk'));
  assert.ok(!email.test('0@com'));
  const fixture = await createFixture(api, shop.id);
  const checkout = {
    gateway: 'tipjar',
    parts: [{ productId: fixture.productId, productVariantId: fixture.variantId, quantity: 1 }],
  };
  assertError(
    await api.post(`/v2/public/shops/${shop.id}/invoices`, { ...checkout, customerEmail: '0@com' }),
    400,
    'validation_error',
  );
  assertError(
    await api.post(`/v2/public/shops/${shop.id}/tickets`, { email: '0@com', title: 'T', message: 'M' }),
    400,
    'validation_error',
  );
  assertError(
    await api.post(`/self/${shop.id}/invoices/${fixture.completedInvoiceId}/resend`, { email: '0@com' }),
    400,
    'validation_error',
  );
  assertError(
    await api.put(`/self/${shop.id}/settings/payments/walletemail`, { email: '0@com' }),
    400,
    'validation_error',
  );

  // Dates: real ones only, in the document and on the server.
  const dateFilters = [...requestSchemas(doc)].filter(([at]) => /(fromDate|toDate|startDate|endDate)$/.test(at));
  assert.ok(dateFilters.length >= 10);
  for (const [at, node] of dateFilters) {
    const schema = node.pattern ? node : node.anyOf?.find((n: Node) => n.pattern);
    assert.ok(
      schema &&
        !new RegExp(schema.pattern, 'u').test('0000-00-00') &&
        !new RegExp(schema.pattern, 'u').test('2026-02-29'),
      at,
    );
  }
  assertError(await api.get(`/self/${shop.id}/invoices?fromDate=0000-00-00`), 400, 'validation_error');
  assertOk(await api.get(`/self/${shop.id}/invoices?fromDate=2028-02-29`));

  // The settings object a product type needs is required by the document, per type.
  const variant = body('/self/{shopId}/v2/products', 'post').properties.variants.items;
  for (const [type, key] of [
    ['service', 'asService'],
    ['dynamic', 'asDynamic'],
  ]) {
    const rule = variant.allOf.find(
      (r: Node) => (r.if.properties.productType.const ?? r.if.properties.productType.enum?.[0]) === type,
    );
    assert.deepEqual(rule.then.required, [key], type);
  }
  const dynamic = { title: 'D', priceDetails: { amount: 1 }, productType: 'dynamic' };
  const res = await api.post(`/self/${shop.id}/v2/products`, { title: 'P', description: 'd', variants: [dynamic] });
  assertError(res, 400, 'validation_error');
  assert.deepEqual(res.body.errors, ['variants[0].asDynamic: is required']);
});

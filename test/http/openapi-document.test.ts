import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ErrorCode } from '../../src/http/errors.js';
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

/** Every operation of the document, with its method and path. */
function operations(doc: Node): [string, Node][] {
  return Object.entries<Node>(doc.paths).flatMap(([path, methods]) =>
    Object.entries<Node>(methods).map(([method, op]): [string, Node] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

/** Each error code with its status: a Record, so a code added to ErrorCode cannot be left out here. */
const statusOf: Record<ErrorCode, number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  shop_locked: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  payment_provider_error: 502,
};

test('the document is the API reference: conventions in the introduction, a description for every tag, a summary for every operation', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();

  // The conventions every call shares, each under its own heading of the introduction.
  const intro: string = doc.info.description;
  const sections = new Map<string, string>();
  for (const part of intro.split(/^## /m).slice(1)) {
    const [heading = '', ...body] = part.split('\n');
    sections.set(heading.trim(), body.join('\n'));
  }
  const says: Record<string, string[]> = {
    Authentication: ['Authorization: Bearer', '401', '403', '`write`', '`read`'],
    'Envelope and errors': ['{ data, message, errors, code }', '`Allow`', 'Retry-After'],
    Validation: ['Unknown body fields are ignored', '`0x1`', 'U+0000', 'nothing written'],
    'Null and partial updates': ['`null`', 'sent back as the PUT body', 'omitted field keeps its value'],
    'Rules beyond JSON Schema': ['x-references', 'x-minor-units', 'x-at-least', 'x-unique-by', 'x-alias-of', 'x-rule'],
    'Lists and paging': ['pageNumber', 'pageSize', '`cursor`', 'nextCursor', 'PageNumber'],
    Money: ['major unit', 'minor units', 'never rounded', 'at most 2 decimals'],
    'Dates and times': ['ISO 8601 UTC', "shop's timezone", '`2026-02-29`'],
    Idempotency: ['Idempotency-Key', '24 h', 'idempotent-replayed: true', '409', 'lease'],
    'Rate limits': ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', '429', 'IPv6 /64'],
    'Request ids and logs': ['X-Request-Id', '[REDACTED]'],
  };
  for (const [heading, phrases] of Object.entries(says)) {
    const text = sections.get(heading)?.replace(/\s+/g, ' ');
    assert.ok(text, `the introduction has a "## ${heading}" section; it has: ${[...sections.keys()].join(', ')}`);
    for (const phrase of phrases) assert.ok(text.includes(phrase), `"## ${heading}" mentions ${phrase}`);
  }
  // Every error code, in the table row of its status.
  const rows = (sections.get('Envelope and errors') ?? '').split('\n').filter((line) => line.startsWith('| '));
  for (const [code, status] of Object.entries(statusOf)) {
    assert.ok(
      rows.some((row) => row.startsWith(`| ${status} |`) && row.includes(`\`${code}\``)),
      `the error table lists ${code} under ${status}`,
    );
  }

  // Every operation has a summary and a tag; every tag it uses is listed once, with a description.
  const ops = operations(doc);
  assert.ok(ops.length > 100, `operations: ${ops.length}`);
  for (const [name, op] of ops) {
    assert.ok(typeof op.summary === 'string' && /\S+ \S+/.test(op.summary), `${name} has a summary`);
    assert.ok(op.tags?.length === 1, `${name} has one tag: ${op.tags}`);
  }
  const used = new Set(ops.map(([, op]) => op.tags[0] as string));
  const listed: string[] = doc.tags.map((tag: Node) => tag.name);
  assert.equal(new Set(listed).size, listed.length, 'no tag is listed twice');
  assert.deepEqual(
    [...used].filter((name) => !listed.includes(name)),
    [],
    'every tag an operation uses is listed',
  );
  assert.deepEqual(
    listed.filter((name) => !used.has(name)),
    [],
    'every listed tag has operations',
  );
  for (const tag of doc.tags as Node[]) {
    assert.ok(typeof tag.description === 'string' && tag.description.length >= 150, `${tag.name} is explained`);
    assert.ok(!/^\s|\s$/.test(tag.description), `${tag.name}: no surrounding whitespace`);
  }

  // Grouped: the tag list is the groups' tags in order, each tag in one group, System last.
  const groups: { name: string; tags: string[] }[] = doc['x-tagGroups'];
  assert.ok(groups.every((group) => group.tags.length > 0));
  assert.deepEqual(
    groups.flatMap((group) => group.tags),
    listed,
  );
  assert.equal(listed.at(-1), 'System');

  // Each resource's explanation carries what docs/api.md used to say about it (a sample per tag).
  const tagText = (name: string): string =>
    (doc.tags.find((tag: Node) => tag.name === name)?.description ?? '').replace(/\s+/g, ' ');
  const explains: Record<string, string[]> = {
    'Shops and settings': ['9.99 USD → 10 JPY', 'on hold'],
    'Payment settings': ['secretsUnreadable', '••••1234', 'blockVpn', 'VPN_RANGES_FILE'],
    'Storefront design': ['two path families', 'read-only'],
    Products: ['RE2', 'delivered at most once', 'Round trip', 'chatUserId'],
    Storefront: ['shop_locked', 'ETag', 'Page cache', 'Never public'],
    Checkout: ['Checks, in order', 'Idempotency-Key', 'balance gateway'],
    Invoices: ['pending → completed | expired | cancelled', 'deliveryError', '64 KiB'],
    Coupons: ['maxUses', 'rounded down'],
    Blacklist: ['CIDR', '`XK`'],
    Dashboards: ['366 days', 'repeat-purchase rate'],
    Analytics: ['REDIS_URL', 'HyperLogLog'],
    Webhooks: ['webhook-signature', 'WEBHOOK_CONCURRENCY', 'ALLOW_PRIVATE_WEBHOOKS', '20 h'],
    Tickets: ['accessKey', 'constant time'],
    Feedbacks: ['shopd appeals accept|reject'],
  };
  for (const [name, phrases] of Object.entries(explains)) {
    for (const phrase of phrases) assert.ok(tagText(name).includes(phrase), `the ${name} tag mentions ${phrase}`);
  }
});

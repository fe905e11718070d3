import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
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
  challenge_required: 428,
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
    'Dates and times': ['ISO 8601 UTC', "shop's time zone", 'daylight saving', '`2026-02-29`'],
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

  // Each resource's explanation carries what the old API guide said about it (a sample per tag).
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

/** docs/api/, where the document's prose is written (src/http/openapi-tags.ts reads it). */
const apiDocs = new URL('../../docs/api/', import.meta.url);
const readApiDoc = (file: string) => readFileSync(new URL(file, apiDocs), 'utf8');

/** docs/api/README.md's groups: each `## ` heading, with the `- [<tag>](<file>)` items under it. */
function apiDocIndex(): { name: string; tags: { name: string; file: string }[] }[] {
  const groups: { name: string; tags: { name: string; file: string }[] }[] = [];
  for (const line of readApiDoc('README.md').split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) groups.push({ name: heading[1]!.trim(), tags: [] });
    const item = /^- \[([^\]]+)\]\(([^)]+)\)$/.exec(line);
    if (item && groups.length > 0) groups.at(-1)!.tags.push({ name: item[1]!, file: item[2]! });
  }
  return groups;
}

/** A docs/api file as the document carries it: without its `# <title>` line, trimmed. */
function docBody(file: string): { title: string; body: string } {
  const [first = '', ...rest] = readApiDoc(file).split('\n');
  return { title: first.replace(/^# /, '').trim(), body: rest.join('\n').trim() };
}

test('the prose of the document is docs/api: every tag a route uses is explained there, and every file there is used', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();

  assert.equal(doc.info.description, docBody('introduction.md').body, 'the introduction is docs/api/introduction.md');

  const groups = apiDocIndex();
  assert.deepEqual(
    doc['x-tagGroups'],
    groups.map((group) => ({ name: group.name, tags: group.tags.map((tag) => tag.name) })),
    'the groups and their order are those of docs/api/README.md',
  );
  const listed = groups.flatMap((group) => group.tags);
  for (const { name, file } of listed) {
    const { title, body } = docBody(file);
    assert.equal(title, name, `docs/api/${file} is titled as README.md lists it`);
    assert.equal(doc.tags.find((tag: Node) => tag.name === name)?.description, body, `${name}: its text is ${file}`);
    assert.ok(body.length > 0, `${file} is not empty`);
  }

  // Every tag a route uses has its file; every file is the introduction, the index or a tag a route uses.
  const used = new Set(operations(doc).flatMap(([, op]) => op.tags as string[]));
  const explained = new Set(listed.map((tag) => tag.name));
  assert.deepEqual(
    [...used].filter((name) => !explained.has(name)),
    [],
    'tags used by routes without a file in docs/api/README.md',
  );
  assert.deepEqual(
    listed.filter((tag) => !used.has(tag.name)).map((tag) => tag.file),
    [],
    'files of tags no route uses',
  );
  const files = readdirSync(apiDocs).filter((name) => name.endsWith('.md'));
  const usedFiles = new Set(['README.md', 'introduction.md', ...listed.map((tag) => tag.file)]);
  assert.deepEqual(
    files.filter((file) => !usedFiles.has(file)),
    [],
    'Markdown files in docs/api that nothing reads (list them in docs/api/README.md)',
  );
  assert.equal(new Set(listed.map((tag) => tag.file)).size, listed.length, 'no file is listed twice');
});

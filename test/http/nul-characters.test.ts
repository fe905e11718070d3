import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, type Client, owner, type Reply } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { pngImage } from '../helpers/multipart.js';
import { createFixture, type Fixture, type Operation, shopOperations, snapshot } from '../helpers/owner-operations.js';

/**
 * Issue 19, item 3: PostgreSQL cannot store U+0000 in text, SQLite can. A NUL in any string a
 * client sends must be the same 400 on both engines, before anything is written.
 */
const NUL = '\u0000';
/** The pattern the OpenAPI description promises on every string. */
const NUL_FREE = '^[^\\x00]*$';

interface DocParameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema: Record<string, unknown>;
}
interface DocOperation {
  parameters?: DocParameter[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
}
type Doc = { paths: Record<string, Record<string, DocOperation>> };

const isFreeText = (schema: Record<string, unknown>) =>
  [schema.type].flat().includes('string') && schema.enum === undefined && schema.const === undefined;

/** Each string of a JSON value with a NUL added, named by the field path the errors use ("variants[0].title"). */
function withNulInEachString(value: unknown, path = ''): { field: string; value: unknown }[] {
  if (typeof value === 'string') return [{ field: path, value: `${value}${NUL}x` }];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) =>
      withNulInEachString(item, `${path}[${i}]`).map((v) => ({
        field: v.field,
        value: value.map((other, j) => (j === i ? v.value : other)),
      })),
    );
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      withNulInEachString(item, path ? `${path}.${key}` : key).map((v) => ({
        field: v.field,
        value: { ...value, [key]: v.value },
      })),
    );
  }
  return [];
}

/** Valid bodies for the operations that are not a shop's owner operations (those have samples in owner-operations.ts). */
function otherBodies(f: Fixture): Record<string, unknown> {
  return {
    'POST /self/shops': { name: 'Another shop' },
    'POST /v2/public/shops/{shopId}/invoices': {
      customerEmail: 'buyer@example.com',
      gateway: 'tipjar',
      parts: [{ productId: f.productId, productVariantId: f.variantId, quantity: 1 }],
      coupon: 'SOME-CODE',
      customFields: { nick: 'Buyer' },
      affiliateCode: 'REF-CODE',
      key: 'storefront-password',
    },
    'POST /v2/public/invoices/{invoiceId}/feedback': { rating: 5, comment: 'Great' },
    'POST /v2/public/shops/{shopId}/tickets': {
      email: 'buyer@example.com',
      title: 'Help',
      message: 'Please',
      invoiceId: f.completedInvoiceId,
      key: 'storefront-password',
    },
    'POST /v2/public/tickets/{ticketId}/message': { content: 'More' },
    'POST /v2/public/shops/{shopId}/customer/sign-in': { email: 'buyer@example.com', key: 'storefront-password' },
  };
}

async function refusalsOfNul(
  app: Awaited<ReturnType<typeof build>>,
  api: Client,
  fixture: Fixture,
  ops: Operation[],
): Promise<{ checked: number; wrong: string[] }> {
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
  const samples = new Map(ops.map((op) => [`${op.method} ${op.path}`, op.sample]));
  const bodies = otherBodies(fixture);
  const values: Record<string, string | number> = {
    ...fixture,
    listingPath: 'some-listing',
    announcementPath: 'some-news',
    name: 'some.png',
  };
  const wrong: string[] = [];
  let checked = 0;

  const expectRefused = (what: string, res: Reply, field: string) => {
    checked++;
    const named = res.body?.errors?.some(
      (e: string) => e === `${field}: must not contain NUL characters` || e.startsWith(`${field}: must be one of`),
    );
    if (res.status !== 400 || res.body.code !== 'validation_error' || res.body.data !== null || !named) {
      wrong.push(`${what} → ${res.status} ${JSON.stringify(res.body)}`);
    }
  };

  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [lower, operation] of Object.entries(methods)) {
      const method = lower.toUpperCase();
      const id = `${method} ${path}`;
      const sample = samples.get(id);
      if (sample?.upload || sample?.raw) continue; // multipart or raw bytes: the file name is checked in its own test
      const body = id in bodies ? bodies[id] : sample?.body?.(fixture);
      const parameters = operation.parameters ?? [];
      const send = (nul: { in: string; name: string } | null, payload: unknown) => {
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const value = String(values[name] ?? 1);
          return nul?.in === 'path' && nul.name === name
            ? `${encodeURIComponent(value)}%00`
            : encodeURIComponent(value);
        });
        const query = new URLSearchParams(sample?.query ?? '');
        if (nul?.in === 'query') query.set(nul.name, `a${NUL}b`);
        const headers = nul?.in === 'header' ? { [nul.name]: `k${NUL}1` } : {};
        return api.request(method, `${url}${query.size > 0 ? `?${query}` : ''}`, payload, headers);
      };
      for (const parameter of parameters.filter((p) => isFreeText(p.schema))) {
        expectRefused(`${id} ${parameter.in} ${parameter.name}`, await send(parameter, body), parameter.name);
      }
      for (const { field, value } of withNulInEachString(body)) {
        expectRefused(`${id} body ${field}`, await send(null, value), field);
      }
    }
  }
  return { checked, wrong };
}

test('a NUL in any string of any route (body, query, path, header) is a 400 naming the field, and changes nothing', async (t) => {
  const app = await build(t, { RATE_LIMIT_OWNER_MAX: '0', RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await createShop(api);
  const fixture = await createFixture(api, shop.id);
  const ops = await shopOperations(app);
  const before = await snapshot(api, ops, fixture);
  const shopsBefore = assertOk(await api.get('/self/shops'));

  const { checked, wrong } = await refusalsOfNul(app, api, fixture, ops);
  assert.ok(checked > 140, `only ${checked} strings checked`);
  assert.deepEqual(wrong, []);

  // The places the issue named, spelled out.
  const named: [string, string, unknown, string][] = [
    ['GET', `/v2/public/shops/${shop.id}/feedbacks?searchString=%00`, undefined, 'searchString'],
    ['POST', `/v2/public/tickets/${fixture.ticketId}/message?accessKey=x`, { content: `hi${NUL}` }, 'content'],
    [
      'POST',
      `/v2/public/shops/${shop.id}/invoices`,
      { ...(otherBodies(fixture)['POST /v2/public/shops/{shopId}/invoices'] as object), coupon: `C${NUL}` },
      'coupon',
    ],
    [
      'POST',
      `/v2/public/shops/${shop.id}/invoices`,
      { ...(otherBodies(fixture)['POST /v2/public/shops/{shopId}/invoices'] as object), affiliateCode: `R${NUL}` },
      'affiliateCode',
    ],
    ['POST', '/self/shops', { name: `Shop${NUL}` }, 'name'],
    ['PUT', `/self/${shop.id}/settings/name`, { newName: `Shop${NUL}` }, 'newName'],
    ['GET', `/self/${shop.id}/products?searchString=a%00`, undefined, 'searchString'],
    ['GET', `/self/${shop.id}/invoices?searchString=%00`, undefined, 'searchString'],
    ['GET', `/self/${shop.id}/customers?searchString=%00`, undefined, 'searchString'],
    ['GET', `/v2/public/shops/${shop.id}/listings/a%00b`, undefined, 'listingPath'],
    ['GET', `/v2/public/invoices/${fixture.invoiceId}%00`, undefined, 'invoiceId'],
  ];
  for (const [method, url, body, field] of named) {
    const res = await api.request(method, url, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.includes(`${field}: must not contain NUL characters`),
      `${method} ${url}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  // The keys of an open map are client strings too.
  const keyed = await api.post(`/v2/public/shops/${shop.id}/invoices`, {
    ...(otherBodies(fixture)['POST /v2/public/shops/{shopId}/invoices'] as object),
    customFields: { [`ni${NUL}ck`]: 'x' },
  });
  assertError(keyed, 400, 'validation_error');
  assert.deepEqual(keyed.body.errors, ['customFields: must not have NUL characters in its property names']);
  const idempotent = await api.post(
    `/self/${shop.id}/customers/${fixture.customerId}/balance/add`,
    { amount: 1 },
    { 'idempotency-key': `k${NUL}` },
  );
  assert.deepEqual(idempotent.body.errors, ['idempotency-key: must not contain NUL characters']);

  assert.deepEqual(await snapshot(api, ops, fixture), before, 'nothing changed');
  assert.deepEqual(assertOk(await api.get('/self/shops')), shopsBefore);
});

test('an upload whose file name holds a NUL is stored under a name of its own; the name sent reaches nothing', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const uploaded = assertOk(
    await api.upload(`/self/${shop.id}/customization/logo`, await pngImage(), `lo${NUL}go.png`),
  );
  assert.match(uploaded.url, /^\/uploads\/[\w-]+\.png$/);
  const settings = assertOk(await api.get(`/self/${shop.id}/settings`));
  assert.ok(!JSON.stringify(settings).includes('\\u0000'));
});

test('the OpenAPI document shows the NUL rule on every string a request can carry', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
  const missing: string[] = [];
  let strings = 0;
  const hasRule = (s: Record<string, unknown>) =>
    s.pattern === NUL_FREE ||
    (Array.isArray(s.allOf) && s.allOf.some((p: { pattern?: string }) => p.pattern === NUL_FREE));
  const walk = (schema: unknown, at: string): void => {
    if (schema === null || typeof schema !== 'object') return;
    if (Array.isArray(schema)) {
      for (const [i, s] of schema.entries()) walk(s, `${at}[${i}]`);
      return;
    }
    const s = schema as Record<string, unknown>;
    if (isFreeText(s)) {
      strings++;
      if (!hasRule(s)) missing.push(at);
    }
    const openMap =
      (s.patternProperties && typeof s.patternProperties === 'object') ||
      (s.additionalProperties && typeof s.additionalProperties === 'object');
    if (openMap && !(s.propertyNames && hasRule(s.propertyNames as Record<string, unknown>)))
      missing.push(`${at} (property names)`);
    for (const [key, value] of Object.entries(s)) if (key !== 'not' && key !== 'if') walk(value, `${at}.${key}`);
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const p of operation.parameters ?? []) walk(p.schema, `${method} ${path} ${p.in} ${p.name}`);
      // A multipart upload's file is bytes, not text.
      walk(operation.requestBody?.content['application/json']?.schema, `${method} ${path} body`);
    }
  }
  assert.ok(strings > 200, `only ${strings} strings in the document`);
  assert.deepEqual(missing, []);
  const nulFree = new RegExp(NUL_FREE, 'u');
  assert.ok(
    nulFree.test('plain text') && !nulFree.test(`a${NUL}b`),
    'the documented pattern refuses NUL and nothing else',
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toAppError } from '../../src/http/error-handler.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

test('health checks the database and answers in the envelope', async (t) => {
  const app = await build(t);
  const res = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { data: { status: 'ok', database: 'ok' }, message: 'OK', errors: [], code: 'ok' });
});

test('health checks arriving together share one database probe; a later one asks again', async (t) => {
  const app = await build(t);
  let probes = 0;
  const stop = app.db.observeQueries((e) => {
    if (/^select 1$/i.test(e.sql.trim())) probes++;
  });
  t.after(stop);
  await app.ready();
  const answers = await Promise.all(Array.from({ length: 20 }, () => app.inject({ method: 'GET', url: '/health' })));
  assert.ok(answers.every((a) => a.statusCode === 200));
  assert.ok(probes >= 1 && probes < 20, `${probes} probes for 20 concurrent checks`);
  const before = probes;
  assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  assert.equal(probes, before + 1, 'a check after the others asks the database itself');
});

test('health answers 503 when the database does not', async (t) => {
  const app = await build(t);
  await app.db.destroy();
  const res = await app.inject({ method: 'GET', url: '/health' });
  assertError({ status: res.statusCode, body: res.json() }, 503, 'service_unavailable');
});

test('unknown routes are a 404 in the envelope', async (t) => {
  const app = await build(t);
  const res = await app.inject({ method: 'GET', url: '/nope?x=1' });
  assertError({ status: res.statusCode, body: res.json() }, 404, 'not_found');
  assert.equal(res.json().message, 'No route GET /nope.');
});

test('a known path asked with a method it does not answer is a 405 with Allow; unknown paths stay 404', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const product = assertOk(
    await api.post(`/self/${shop.id}/v2/products`, {
      title: 'P',
      description: 'd',
      variants: [{ title: 'V', priceDetails: { amount: 1 }, productType: 'service', asService: { text: 't' } }],
    }),
  );
  const cases = [
    { method: 'DELETE', url: '/self/shops', allow: 'GET, HEAD, POST' },
    { method: 'PATCH', url: `/self/${shop.id}/v2/products/${product.id}`, allow: 'GET, HEAD, PUT' },
    { method: 'PUT', url: `/self/${shop.id}/products/${product.id}?x=1`, allow: 'DELETE' },
    // OPTIONS asks which methods a path answers: Allow says it (there is no CORS preflight to serve).
    { method: 'OPTIONS', url: '/self/shops', allow: 'GET, HEAD, POST' },
  ];
  for (const { method, url, allow } of cases) {
    const res = await app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${api.key}` } });
    assertError({ status: res.statusCode, body: res.json() }, 405, 'method_not_allowed');
    assert.equal(res.headers.allow, allow, `${method} ${url}`);
    assert.ok(res.headers['x-request-id']);
  }
  assert.equal(
    assertOk(await api.get(`/self/${shop.id}/v2/products/${product.id}`)).title,
    'P',
    'the refused calls changed nothing',
  );
  const head = await app.inject({
    method: 'HEAD',
    url: '/self/shops',
    headers: { authorization: `Bearer ${api.key}` },
  });
  assert.equal(head.statusCode, 200, 'HEAD of a GET route still works');
  const unknown = await app.inject({ method: 'DELETE', url: '/self/shops/nope/deeper' });
  assertError({ status: unknown.statusCode, body: unknown.json() }, 404, 'not_found');
  assert.equal(unknown.headers.allow, undefined);
});

test('every documented path answers an undocumented method with 405 and exactly its documented methods in Allow', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const paths = Object.entries(doc.paths);
  assert.ok(paths.length > 50);
  for (const [path, operations] of paths) {
    const documented = Object.keys(operations).map((m) => m.toUpperCase());
    const allow = [...new Set([...documented, ...(documented.includes('GET') ? ['HEAD'] : [])])].sort().join(', ');
    const method = ['PATCH', 'DELETE', 'PUT', 'POST'].find((m) => !documented.includes(m))!;
    const res = await app.inject({ method: method as 'GET', url: path.replace(/\{\w+\}/g, '1') });
    assert.equal(res.statusCode, 405, `${method} ${path}: ${res.body}`);
    assert.equal(res.json().code, 'method_not_allowed');
    assert.equal(res.headers.allow, allow, `${method} ${path}`);
  }
});

test('every answer carries X-Request-Id, echoed when the client sends a sane one', async (t) => {
  const app = await build(t);
  const generated = await app.inject({ method: 'GET', url: '/health' });
  assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const echoed = await app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'req-123.abc' } });
  assert.equal(echoed.headers['x-request-id'], 'req-123.abc');
  const junk = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id with spaces' } });
  assert.notEqual(junk.headers['x-request-id'], 'bad id with spaces');
});

test('malformed JSON, wrong media type and oversized bodies get clear 4xx answers', async (t) => {
  const app = await build(t, { BODY_LIMIT_BYTES: '2048' });
  const api = await owner(app);
  const headers = { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' };
  const malformed = await app.inject({ method: 'POST', url: '/self/shops', headers, payload: '{"name": "x"' });
  assertError({ status: malformed.statusCode, body: malformed.json() }, 400, 'validation_error');
  const empty = await app.inject({ method: 'POST', url: '/self/shops', headers, payload: '' });
  assertError({ status: empty.statusCode, body: empty.json() }, 400, 'validation_error');
  const text = await app.inject({
    method: 'POST',
    url: '/self/shops',
    headers: { ...headers, 'content-type': 'text/plain' },
    payload: 'name=x',
  });
  assertError({ status: text.statusCode, body: text.json() }, 415, 'unsupported_media_type');
  const large = await app.inject({
    method: 'POST',
    url: '/self/shops',
    headers,
    payload: JSON.stringify({ name: 'x', pad: 'y'.repeat(4096) }),
  });
  assertError({ status: large.statusCode, body: large.json() }, 413, 'payload_too_large');
  assert.deepEqual(assertOk(await api.get('/self/shops')), [], 'none of them created anything');
});

test('validation reports every problem as "<field>: <what is wrong>"', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const res = await api.put(`/self/${shop.id}/settings/payments/mobilecash`, {
    enabled: 1,
    cashtag: '',
    email: 'nope',
    gatewayRules: { blockVpn: 3 },
  });
  assertError(res, 400, 'validation_error');
  for (const field of ['enabled', 'cashtag', 'email', 'gatewayRules.blockVpn']) {
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      `${field} in ${JSON.stringify(res.body.errors)}`,
    );
  }
  const missing = await api.put(`/self/${shop.id}/settings/name`, {});
  assert.deepEqual(missing.body.errors, ['newName: is required']);
});

test('server errors hide their details', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  // Break the table behind the settings read: the answer must be a bare 500.
  await app.db.kysely.schema.dropTable('payment_settings').execute();
  const res = await api.get(`/self/${shop.id}/settings`);
  assert.equal(res.status, 500);
  assert.deepEqual(res.body, {
    data: null,
    message: 'Internal server error.',
    errors: ['Internal server error.'],
    code: 'internal_error',
  });
});

test('OpenAPI document describes what the server accepts; /docs renders it', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.equal(doc.openapi, '3.1.0');
  const put = doc.paths['/self/{shopId}/settings/subdomain'].put;
  assert.ok(put.security.length > 0, 'owner routes declare the key');
  const body = put.requestBody.content['application/json'].schema;
  // The shape and the reserved words are both in the pattern: the document refuses what the server refuses.
  assert.match(
    body.properties.newSubDomain.pattern,
    /^\^\(\?!\(\?:admin\|api\|.*www\)\$\)\[a-z0-9\]\(\?:\[a-z0-9-\]\{1,30\}\[a-z0-9\]\)\$$/,
  );
  assert.ok(put.responses['409'], 'conflicts are documented');
  const tz = doc.paths['/self/{shopId}/settings/timezone'].put.requestBody.content['application/json'].schema;
  assert.equal(tz.properties.utcTimezoneOffset.minimum, -720);
  assert.equal(tz.properties.utcTimezoneOffset.maximum, 840);
  const shopId = put.parameters.find((p: { name: string }) => p.name === 'shopId');
  assert.equal(shopId.schema.minimum, 1);
  assert.match(doc.info.description, /Idempotency/);
  const docs = await app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(docs.statusCode, 200);
  assert.match(docs.headers['content-type'] as string, /text\/html/);
});

test('database constraint violations map to the envelope on both engines', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const db = app.db.kysely;
  const caught = async (query: Promise<unknown>) =>
    query.then(
      () => assert.fail('expected a violation'),
      (err: Error) => toAppError(err),
    );
  const row = await db.selectFrom('shops').selectAll().where('id', '=', shop.id).executeTakeFirstOrThrow();
  const { id: _id, ...copy } = row;
  const unique = await caught(db.insertInto('shops').values(copy).execute());
  assert.equal(unique.statusCode, 409);
  assert.equal(unique.code, 'conflict');
  const foreign = await caught(
    db
      .insertInto('shops')
      .values({ ...copy, subdomain: 'other-one', account_id: 999999 })
      .execute(),
  );
  assert.equal(foreign.statusCode, 409);
  const check = await caught(
    db
      .insertInto('shops')
      .values({ ...copy, subdomain: 'third-one', utc_offset_minutes: 5000 })
      .execute(),
  );
  assert.equal(check.statusCode, 400);
  assert.equal(check.code, 'validation_error');
});

test('router-level errors, empty JSON bodies and key order keep to the conventions', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  for (const url of [`/self/%E0%A4%A/settings`, `/v2/public/invoices/${'x'.repeat(201)}`]) {
    const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${api.key}` } });
    assertError({ status: res.statusCode, body: res.json() }, 400, 'validation_error');
    assert.ok(res.headers['x-request-id']);
  }
  const garbage = await app.inject({
    method: 'PUT',
    url: `/self/${shop.id}/settings/name`,
    headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
    payload: 'garbage',
  });
  assert.deepEqual(garbage.json().errors, ['body: is not valid JSON']);
  // An empty JSON body is no body: optional-only bodies pass, required fields are named.
  const empty = await app.inject({
    method: 'PUT',
    url: `/self/${shop.id}/settings/name`,
    headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
    payload: '',
  });
  assert.deepEqual(empty.json().errors, ['newName: is required']);
  const poisoned = await app.inject({
    method: 'POST',
    url: '/self/shops',
    headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
    payload: '{"name":"x","__proto__":{"admin":true}}',
  });
  assertError({ status: poisoned.statusCode, body: poisoned.json() }, 400, 'validation_error');
  // The same body in another key order is the same idempotent request.
  const headers = { 'idempotency-key': 'order-free' };
  const first = await api.post('/self/shops', { name: 'Ordered', extra: { a: 1, b: 2 } }, headers);
  const again = await api.post('/self/shops', { extra: { b: 2, a: 1 }, name: 'Ordered' }, headers);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(again.body, first.body);
});

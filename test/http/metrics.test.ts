import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { build, engine, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop, sellingShop } from '../helpers/factories.js';
import { buildWithProviders } from '../helpers/payment-providers.js';
import { openForm, postForm } from '../helpers/web-forms.js';
import { webhookReceiver as receiver } from '../helpers/webhook-receiver.js';

/** Issue 24 item 3: `GET /metrics`, Prometheus's text format behind METRICS_TOKEN. */

const TOKEN = 'metrics-token-0123456789-abcdef';
const WITH_METRICS = { METRICS_TOKEN: TOKEN };

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  samples: Sample[];
  /** `# TYPE` of each metric family. */
  types: Map<string, string>;
}

/**
 * Just enough of the text exposition format (0.0.4) for prom-client's output: `# HELP` and
 * `# TYPE` lines, and samples `name{label="value",...} value`, label values escaped with `\\`,
 * `\"` and `\n`. Anything else fails the test: the format is part of what is checked.
 */
function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      else assert.match(line, /^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* /, `a comment line: ${line}`);
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    assert.ok(match, `a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const labelText = match[2] ?? '';
    const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
    while (label.lastIndex < labelText.length) {
      const l = label.exec(labelText);
      assert.ok(l, `labels: ${labelText}`);
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const raw = match[3]!;
    // prom-client writes NaN as `Nan` (a gauge of no observation yet); Prometheus reads either.
    const value = raw === '+Inf' ? Number.POSITIVE_INFINITY : raw === '-Inf' ? Number.NEGATIVE_INFINITY : Number(raw);
    assert.ok(!Number.isNaN(value) || /^nan$/i.test(raw), `a value: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { samples, types };
}

/** The samples of `name` whose labels include `labels`. */
function samplesOf(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one sample of `name` with exactly these labels (undefined when there is none). */
function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = e.samples.filter(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length <= 1, `one sample of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** The sum of `name` over every sample whose labels include `labels` (0 when there is none). */
const sumOf = (e: Exposition, name: string, labels: Record<string, string> = {}) =>
  samplesOf(e, name, labels).reduce((sum, s) => sum + s.value, 0);

async function scrape(app: FastifyInstance): Promise<Exposition> {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  return parseExposition(res.body);
}

/** Requests answered for `route` (its pattern), by method and status: the histogram's `_count`. */
const requestCount = (e: Exposition, route: string, method = 'GET', status = '200') =>
  sampleValue(e, 'shopd_http_request_duration_seconds_count', { method, route, status }) ?? 0;

const checkoutCounts = (e: Exposition) =>
  Object.fromEntries(
    ['placed', 'out_of_stock', 'blocked', 'refused', 'failed'].map((outcome) => [
      outcome,
      sampleValue(e, 'shopd_checkouts_total', { outcome }),
    ]),
  );

test('without METRICS_TOKEN there is no /metrics: a 404, whatever the header', async (t) => {
  const app = await build(t);
  for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
    const res = await app.inject({ method: 'GET', url: '/metrics', headers });
    assertError({ status: res.statusCode, body: res.json() }, 404, 'not_found');
  }
  assert.equal(app.metrics, null);
});

test('/metrics asks for the bearer token: none or a wrong one is a 401 envelope with www-authenticate', async (t) => {
  const app = await build(t, WITH_METRICS);
  const cases: [string, Record<string, string>][] = [
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer metrics-token-0123456789-abcdeX' }],
    ['the token without the scheme', { authorization: TOKEN }],
    ['the token with another scheme', { authorization: `Basic ${TOKEN}` }],
    ['a longer token', { authorization: `Bearer ${TOKEN}x` }],
    ['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
  ];
  for (const [what, headers] of cases) {
    const res = await app.inject({ method: 'GET', url: '/metrics', headers });
    assertError({ status: res.statusCode, body: res.json() }, 401, 'unauthorized');
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"', what);
    assert.ok(!res.body.includes(TOKEN), `${what}: the answer does not hold the token`);
  }
  // An API key is no metrics token either.
  const api = await owner(app);
  const withKey = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${api.key}` } });
  assert.equal(withKey.statusCode, 401);

  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4(;|$)/);
  const e = parseExposition(res.body);
  assert.equal(e.types.get('shopd_http_request_duration_seconds'), 'histogram');
  assert.equal(e.types.get('shopd_db_query_duration_seconds'), 'histogram');
  assert.equal(e.types.get('shopd_checkouts_total'), 'counter');
  assert.equal(e.types.get('shopd_page_cache_lookups_total'), 'counter');
  assert.equal(e.types.get('shopd_page_cache_bytes'), 'gauge');
  assert.equal(e.types.get('shopd_outbox_backlog'), 'gauge');
  assert.equal(e.types.get('shopd_outbox_oldest_age_seconds'), 'gauge');
  // prom-client's default process metrics are there too.
  assert.ok((sampleValue(e, 'process_cpu_user_seconds_total') ?? -1) >= 0, 'process_cpu_user_seconds_total');
  assert.ok((sampleValue(e, 'nodejs_heap_size_used_bytes') ?? 0) > 0, 'nodejs_heap_size_used_bytes');
  // The refused scrapes above were counted, under the route, as 401s.
  assert.equal(requestCount(e, '/metrics', 'GET', '401'), cases.length + 1);
});

test('wrong metrics tokens count as failed authentications: past the limit a 429, while the right token still works', async (t) => {
  const app = await build(t, { ...WITH_METRICS, RATE_LIMIT_AUTH_FAILURES_MAX: '2' });
  const scrapeWith = (token: string, remoteAddress = '198.51.100.7') =>
    app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: { authorization: `Bearer ${token}` } });
  assert.equal((await scrapeWith('wrong-token-0000000001')).statusCode, 401);
  assert.equal((await scrapeWith('wrong-token-0000000002')).statusCode, 401);
  const blocked = await scrapeWith('wrong-token-0000000003');
  assertError({ status: blocked.statusCode, body: blocked.json() }, 429, 'rate_limited');
  assert.ok(Number(blocked.headers['retry-after']) > 0);
  assert.equal((await scrapeWith(TOKEN)).statusCode, 200, 'the right token is never refused for it');
  assert.equal(
    (await scrapeWith('wrong-token-0000000004', '198.51.100.8')).statusCode,
    401,
    'another client has its own count',
  );
});

test('requests are counted by method, route pattern and status; a 404 no route took is `unmatched`', async (t) => {
  const app = await build(t, WITH_METRICS);
  const api = await owner(app);
  const shop = await createShop(api);
  const settings = `/self/${shop.id}/settings`;
  for (let i = 0; i < 3; i++) assertOk(await api.get(settings));
  assertOk(await api.put(`/self/${shop.id}/settings/name`, { newName: 'Renamed' }));
  // A route's own 404 (no such product) keeps the route's pattern.
  assertError(await api.get(`/self/${shop.id}/v2/products/987654`), 404, 'not_found');
  // Paths no route takes: with ids and secrets in them, none of which may become a label.
  const unknown = [`/self/${shop.id}/no-such-thing/123456`, '/nowhere/424242?token=tok-secret-0042', '/v3/public/777'];
  for (const url of unknown) assert.equal((await app.inject({ method: 'GET', url })).statusCode, 404);
  assert.equal((await app.inject({ method: 'DELETE', url: '/nowhere/535353' })).statusCode, 404);

  const e = await scrape(app);
  assert.equal(requestCount(e, '/self/:shopId/settings'), 3);
  assert.equal(requestCount(e, '/self/:shopId/settings/name', 'PUT'), 1);
  assert.equal(requestCount(e, '/self/shops', 'POST'), 1);
  assert.equal(requestCount(e, '/self/:shopId/v2/products/:productId', 'GET', '404'), 1);
  assert.equal(requestCount(e, 'unmatched', 'GET', '404'), unknown.length);
  assert.equal(requestCount(e, 'unmatched', 'DELETE', '404'), 1);
  // Each request is in exactly one bucket series: the +Inf bucket equals the count.
  assert.equal(
    sampleValue(e, 'shopd_http_request_duration_seconds_bucket', {
      method: 'GET',
      route: '/self/:shopId/settings',
      status: '200',
      le: '+Inf',
    }),
    3,
  );
  assert.ok(
    (sampleValue(e, 'shopd_http_request_duration_seconds_sum', {
      method: 'GET',
      route: '/self/:shopId/settings',
      status: '200',
    }) ?? -1) >= 0,
  );

  const routes = new Set(samplesOf(e, 'shopd_http_request_duration_seconds_count').map((s) => s.labels.route!));
  for (const route of routes) {
    assert.ok(route === 'unmatched' || route.startsWith('/'), route);
    assert.ok(!/\d{3,}/.test(route), `no id in a route label: ${route}`);
    assert.ok(!route.includes(`/${shop.id}/`), `no shop id in a route label: ${route}`);
    assert.ok(!route.includes('token'), route);
  }
  assert.ok(!e.samples.some((s) => Object.values(s.labels).some((v) => /424242|535353|777|tok-secret/.test(v))));

  // The scrape itself is counted, from the next one on.
  const next = await scrape(app);
  assert.equal(requestCount(next, '/metrics'), 1);
  assert.equal(requestCount(next, '/self/:shopId/settings'), 3, 'counts only grow by what was asked');
});

test('database statements are timed by kind', async (t) => {
  const app = await build(t, WITH_METRICS);
  const api = await owner(app);
  const count = (e: Exposition, statement: string) =>
    sampleValue(e, 'shopd_db_query_duration_seconds_count', { statement }) ?? 0;
  const before = await scrape(app);
  const shop = await createShop(api);
  assertOk(await api.put(`/self/${shop.id}/settings/name`, { newName: 'Renamed' }));
  assertOk(await api.get(`/self/${shop.id}/settings`));
  const after = await scrape(app);
  assert.ok(count(after, 'select') > count(before, 'select'), 'selects were counted');
  assert.ok(count(after, 'insert') > count(before, 'insert'), 'the new shop was an insert');
  assert.ok(count(after, 'update') > count(before, 'update'), 'the rename was an update');
  const kinds = new Set(samplesOf(after, 'shopd_db_query_duration_seconds_count').map((s) => s.labels.statement));
  for (const kind of kinds) assert.ok(['select', 'insert', 'update', 'delete', 'other'].includes(kind!), kind);
  assert.ok(
    (sampleValue(after, 'shopd_db_query_duration_seconds_sum', { statement: 'select' }) ?? -1) >= 0,
    'the time of the selects',
  );
});

test('the pool gauges are there on PostgreSQL only', async (t) => {
  const app = await build(t, WITH_METRICS);
  const e = await scrape(app);
  if (engine === 'sqlite') {
    assert.equal(samplesOf(e, 'shopd_db_pool_connections').length, 0);
    assert.equal(samplesOf(e, 'shopd_db_pool_waiting_queries').length, 0);
    return;
  }
  const total = sampleValue(e, 'shopd_db_pool_connections', { state: 'total' });
  const idle = sampleValue(e, 'shopd_db_pool_connections', { state: 'idle' });
  assert.ok(total !== undefined && total >= 1 && total <= 10, `total ${total}`);
  assert.ok(idle !== undefined && idle >= 0 && idle <= total, `idle ${idle}`);
  assert.equal(sampleValue(e, 'shopd_db_pool_waiting_queries'), 0);
  assert.deepEqual(app.db.poolStats(), { total, idle, waiting: 0 }, 'what the pool says, read at the scrape');
});

test('page cache lookups are counted as hits and misses; its size is a gauge', async (t) => {
  const app = await build(t, WITH_METRICS);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const { subdomain } = assertOk(await api.get(`/self/${shopId}/settings`));
  const lookups = (e: Exposition) => ({
    hit: sampleValue(e, 'shopd_page_cache_lookups_total', { result: 'hit' }),
    miss: sampleValue(e, 'shopd_page_cache_lookups_total', { result: 'miss' }),
  });
  const before = await scrape(app);
  assert.deepEqual(lookups(before), { hit: 0, miss: 0 });
  assert.equal(sampleValue(before, 'shopd_page_cache_bytes'), 0);

  // The JSON storefront page, twice: computed, then served from memory.
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}/main` });
    assert.equal(res.statusCode, 200);
  }
  const json = await scrape(app);
  assert.deepEqual(lookups(json), { hit: 1, miss: 1 });
  const jsonBytes = sampleValue(json, 'shopd_page_cache_bytes')!;
  assert.ok(jsonBytes > 0, 'the page is held');
  assert.equal(jsonBytes, app.pageCache.size.bytes);

  // The web storefront's home page, twice: the same.
  for (let i = 0; i < 2; i++)
    assert.equal((await app.inject({ method: 'GET', url: `/s/${subdomain}` })).statusCode, 200);
  const web = await scrape(app);
  assert.deepEqual(lookups(web), { hit: 2, miss: 2 });
  assert.ok(sampleValue(web, 'shopd_page_cache_bytes')! > jsonBytes);

  // A write empties the shop's pages: the gauge goes back to nothing held.
  assertOk(await api.put(`/self/${shopId}/settings/name`, { newName: 'Renamed' }));
  const emptied = await scrape(app);
  assert.equal(sampleValue(emptied, 'shopd_page_cache_bytes'), 0);
  assert.deepEqual(lookups(emptied), { hit: 2, miss: 2 }, 'lookups are a counter: they do not go back');
});

test('checkouts are counted by outcome, through the API and the web storefront form', async (t) => {
  const app = await build(t, WITH_METRICS);
  const api = await owner(app);
  // Three keys: two orders of one, then the third is the last.
  const { shopId, productId, keysVariant } = await sellingShop(api, {
    serials: ['SERIAL-ONE-1111', 'SERIAL-TWO-2222', 'SERIAL-THREE-3333'],
  });
  const { subdomain } = assertOk(await api.get(`/self/${shopId}/settings`));
  assertOk(await api.post(`/self/${shopId}/blacklist`, { type: 'email', data: 'blocked@example.com' }));
  const order = (over: object = {}) => ({
    customerEmail: 'buyer@example.com',
    gateway: 'tipjar',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
    ...over,
  });
  const buy = async (body: object) => {
    const res = await app.inject({ method: 'POST', url: `/v2/public/shops/${shopId}/invoices`, payload: body });
    return { status: res.statusCode, body: res.json() };
  };
  const before = await scrape(app);
  assert.deepEqual(
    checkoutCounts(before),
    { placed: 0, out_of_stock: 0, blocked: 0, refused: 0, failed: 0 },
    'every outcome is there from the start, at 0',
  );

  assertOk(await buy(order()));
  assertError(await buy(order({ customerEmail: 'Blocked@Example.com' })), 422, 'unprocessable');
  assertError(await buy(order({ coupon: 'NOPE' })), 422, 'unprocessable');
  // More keys than are left.
  assertError(
    await buy(order({ parts: [{ productId, productVariantId: keysVariant, quantity: 3 }] })),
    422,
    'unprocessable',
  );
  assert.deepEqual(checkoutCounts(await scrape(app)), {
    placed: 1,
    out_of_stock: 1,
    blocked: 1,
    refused: 1,
    failed: 0,
  });

  // The storefront's checkout form: one placed, one refused by the service (a bad coupon), one
  // the form itself refuses (no e-mail) before asking the service: not a checkout.
  const base = `/s/${subdomain}`;
  const { page, form } = await openForm(app, `${base}/checkout?product=${productId}&variant=${keysVariant}`);
  assert.equal(page.statusCode, 200, page.body);
  const fields = { product: String(productId), variant: String(keysVariant), quantity: '1', gateway: 'tipjar' };
  const placed = await postForm(app, `${base}/checkout`, form, { ...fields, email: 'web@example.com' });
  assert.equal(placed.statusCode, 303, placed.body);
  const badCoupon = await postForm(app, `${base}/checkout`, form, {
    ...fields,
    email: 'web@example.com',
    coupon: 'NOPE',
  });
  assert.equal(badCoupon.statusCode, 422);
  const blocked = await postForm(app, `${base}/checkout`, form, { ...fields, email: 'blocked@example.com' });
  assert.equal(blocked.statusCode, 422);
  const noEmail = await postForm(app, `${base}/checkout`, form, fields);
  assert.equal(noEmail.statusCode, 400);
  // One key is left: two are more than that.
  const soldOut = await postForm(app, `${base}/checkout`, form, { ...fields, quantity: '2', email: 'web@example.com' });
  assert.equal(soldOut.statusCode, 422);
  assert.deepEqual(checkoutCounts(await scrape(app)), {
    placed: 2,
    out_of_stock: 2,
    blocked: 2,
    refused: 2,
    failed: 0,
  });
});

test('a checkout the payment provider fails is counted as failed', async (t) => {
  const { app, double } = await buildWithProviders(t, WITH_METRICS);
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cardconnect`, {
      enabled: true,
      secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
      webhookSecret: 'whsec_test_card_secret_0001',
    }),
  );
  const card = {
    customerEmail: 'card.buyer@example.com',
    gateway: 'cardconnect',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
  };
  // A 500 is tried again once by the Stripe library: both fail.
  double.failNext('/v1/checkout/sessions', 500, 'An unknown error occurred', 2);
  assertError(await api.post(`/v2/public/shops/${shopId}/invoices`, card), 502, 'payment_provider_error');
  assert.deepEqual(checkoutCounts(await scrape(app)), {
    placed: 0,
    out_of_stock: 0,
    blocked: 0,
    refused: 0,
    failed: 1,
  });
  assertOk(await api.post(`/v2/public/shops/${shopId}/invoices`, card));
  assert.equal(checkoutCounts(await scrape(app)).placed, 1, 'a card order the provider took is placed');
});

test('the outbox backlogs and the age of their oldest row are read at the scrape; a worker pass empties them', async (t) => {
  const app = await build(t, WITH_METRICS);
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  const sink = await receiver(t);
  assertOk(await api.post(`/self/${shopId}/webhooks`, { url: sink.url, events: ['invoice.created'] }));
  const backlog = (e: Exposition) => ({
    mail: sampleValue(e, 'shopd_outbox_backlog', { outbox: 'mail' }),
    webhooks: sampleValue(e, 'shopd_outbox_backlog', { outbox: 'webhooks' }),
  });
  const age = (e: Exposition, outbox: string) => sampleValue(e, 'shopd_outbox_oldest_age_seconds', { outbox })!;

  const empty = await scrape(app);
  assert.deepEqual(backlog(empty), { mail: 0, webhooks: 0 });
  assert.equal(age(empty, 'mail'), 0);
  assert.equal(age(empty, 'webhooks'), 0);

  for (const email of ['one@example.com', 'two@example.com']) {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      payload: {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  const db = app.db.kysely;
  const pendingMail = await db
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .orderBy('id')
    .execute();
  assert.ok(pendingMail.length >= 2, 'each buyer was mailed');
  const pendingDeliveries = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .execute();
  assert.equal(pendingDeliveries.length, 2, 'one invoice.created delivery per order');
  // The oldest rows were queued an hour (mail) and two hours (webhooks) ago.
  const now = Date.now();
  await db
    .updateTable('mail_outbox')
    .set({ created_at: now - 3600_000 })
    .where('id', '=', pendingMail[0]!.id)
    .execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ created_at: now - 7200_000 })
    .where('id', '=', pendingDeliveries[0]!.id)
    .execute();

  const queued = await scrape(app);
  assert.deepEqual(backlog(queued), { mail: pendingMail.length, webhooks: 2 });
  // At least as old as written; at most that plus the time this test has run since.
  const bound = (Date.now() - now) / 1000;
  assert.ok(age(queued, 'mail') >= 3600 && age(queued, 'mail') <= 3600 + bound + 1, `mail age ${age(queued, 'mail')}`);
  assert.ok(
    age(queued, 'webhooks') >= 7200 && age(queued, 'webhooks') <= 7200 + bound + 1,
    `webhooks age ${age(queued, 'webhooks')}`,
  );

  assert.equal(await app.mailWorker.runOnce(), pendingMail.length);
  const mailed = await scrape(app);
  assert.deepEqual(backlog(mailed), { mail: 0, webhooks: 2 });
  assert.equal(age(mailed, 'mail'), 0);
  assert.ok(age(mailed, 'webhooks') >= 7200);

  assert.equal(await app.webhookWorker.runOnce(), 2);
  assert.equal(sink.received.length, 2);
  const delivered = await scrape(app);
  assert.deepEqual(backlog(delivered), { mail: 0, webhooks: 0 });
  assert.equal(age(delivered, 'webhooks'), 0);
});

test('a scrape reads each outbox once; while the database does not answer it still answers, without the outbox gauges', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const app = await buildApp({ config: await freshConfig(t, WITH_METRICS), logger: { level: 'warn', stream } });
  onEnd(t, () => app.close());
  const reads = { mail: 0, webhooks: 0 };
  const stop = app.db.observeQueries((q) => {
    if (/mail_outbox/.test(q.sql)) reads.mail++;
    if (/webhook_deliveries/.test(q.sql)) reads.webhooks++;
  });
  onEnd(t, stop);
  await scrape(app);
  assert.deepEqual(reads, { mail: 1, webhooks: 1 }, 'both gauges of an outbox share one read');

  await app.db.destroy();
  const e = await scrape(app);
  assert.deepEqual(samplesOf(e, 'shopd_outbox_backlog'), []);
  assert.deepEqual(samplesOf(e, 'shopd_outbox_oldest_age_seconds'), []);
  assert.equal(requestCount(e, '/metrics'), 1, 'the rest is there');
  assert.ok(
    lines.some((l) => JSON.parse(l).msg === 'metrics: the outbox backlogs could not be read'),
    lines.join('\n'),
  );
});

test('neither the token nor the Authorization header reaches the log', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const app = await buildApp({ config: await freshConfig(t, WITH_METRICS), logger: { level: 'trace', stream } });
  onEnd(t, () => app.close());
  const wrong = 'wrong-metrics-token-4711-4711';
  assert.equal(
    (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${wrong}` } })).statusCode,
    401,
  );
  assert.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
  await scrape(app);
  assert.ok(lines.length > 0, 'the requests were logged');
  assert.ok(
    lines.some((l) => l.includes('/metrics')),
    'the scrapes are in the log',
  );
  for (const secret of [TOKEN, wrong]) {
    const leaked = lines.filter((l) => l.includes(secret));
    assert.deepEqual(leaked, [], `${secret} appears in the log`);
  }
  // The refusal names the header it wants (`Bearer <METRICS_TOKEN>`), never the one it got.
  assert.ok(!lines.some((l) => /"authorization"/i.test(l)), 'no Authorization header is logged');
  assert.ok(!lines.some((l) => /Bearer (?!<METRICS_TOKEN>)/.test(l)), 'no bearer credential is logged');
});

test('each app counts its own: two apps in one process share no counter', async (t) => {
  const one = await build(t, WITH_METRICS);
  const two = await build(t, WITH_METRICS);
  const api = await owner(one);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  const res = await one.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    payload: {
      customerEmail: 'buyer@example.com',
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
    },
  });
  assert.equal(res.statusCode, 200);
  for (let i = 0; i < 2; i++) await one.inject({ method: 'GET', url: `/v2/public/shops/${shopId}/main` });
  await one.inject({ method: 'GET', url: '/nowhere' });

  const first = await scrape(one);
  const second = await scrape(two);
  assert.equal(requestCount(first, '/v2/public/shops/:shopId/invoices', 'POST'), 1);
  assert.equal(requestCount(second, '/v2/public/shops/:shopId/invoices', 'POST'), 0);
  assert.equal(requestCount(first, 'unmatched', 'GET', '404'), 1);
  assert.equal(requestCount(second, 'unmatched', 'GET', '404'), 0);
  assert.equal(checkoutCounts(first).placed, 1);
  assert.equal(checkoutCounts(second).placed, 0);
  assert.equal(sampleValue(first, 'shopd_page_cache_lookups_total', { result: 'hit' }), 1);
  assert.equal(sampleValue(second, 'shopd_page_cache_lookups_total', { result: 'hit' }), 0);
  assert.equal(sampleValue(second, 'shopd_page_cache_bytes'), 0);
  assert.ok(
    sumOf(first, 'shopd_db_query_duration_seconds_count') > sumOf(second, 'shopd_db_query_duration_seconds_count'),
  );
  // Each database is its own too: the second app's outbox is empty.
  assert.equal(sampleValue(second, 'shopd_outbox_backlog', { outbox: 'mail' }), 0);
  assert.ok(sampleValue(first, 'shopd_outbox_backlog', { outbox: 'mail' })! >= 1);
  // A closed app's metrics are gone with it; the other goes on counting.
  await one.close();
  await two.inject({ method: 'GET', url: '/nowhere' });
  assert.equal(requestCount(await scrape(two), 'unmatched', 'GET', '404'), 1);
});

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { downloadLogOfInvoice, downloadsOfInvoice, grantDownloads } from '../../src/modules/files/index.js';
import { build, type Client, owner } from '../helpers/build.js';
import { TestClock } from '../helpers/clock.js';
import {
  downloadsOf,
  type FileShop,
  fileShop,
  pathOf,
  type StoredFile,
  sellFiles,
  storeFile,
} from '../helpers/downloads.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

/**
 * Download links of file products (issue 35): the signed links an order shows, what they serve
 * (headers, bytes, ranges), how downloads count (parallel requests included), what refuses them
 * (expired, used up, tampered, another shop's, refunded) and the owner's log.
 */

const HOUR = 3_600_000;

interface Setup extends FileShop {
  app: FastifyInstance;
  api: Client;
  clock: TestClock;
  file: StoredFile;
  bytes: Buffer;
}

async function setup(
  t: import('node:test').TestContext,
  opts: { downloadLimit?: number; linkHours?: number; name?: string; bytes?: Buffer } = {},
): Promise<Setup> {
  const clock = new TestClock();
  const app = await build(t, {}, { clock });
  const api = await owner(app);
  const bytes = opts.bytes ?? randomBytes(64 * 1024 + 123);
  const shop = await fileShop(app, api, { name: opts.name, body: bytes }, opts);
  return { ...shop, app, api, clock, bytes };
}

function get(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test('a link serves the file as an attachment with its headers, and HEAD counts nothing', async (t) => {
  const name = 'Été – guide "final".pdf';
  const { app, clock, file, bytes, buy } = await setup(t, { name, downloadLimit: 3 });
  const { id, downloads } = await buy();
  assert.equal(downloads.length, 1);
  const [link] = downloads;
  assert.equal(link!.fileId, file.id);
  assert.equal(link!.name, name);
  assert.equal(link!.size, bytes.length);
  assert.equal(link!.remaining, 3);
  assert.match(pathOf(link!.url), /^\/v2\/public\/shops\/\d+\/downloads\/[A-Za-z0-9_-]{60}$/);
  assert.ok(!link!.url.includes(id), 'a link does not carry the invoice id');

  const head = await app.inject({ method: 'HEAD', url: pathOf(link!.url) });
  assert.equal(head.statusCode, 200);
  assert.equal(head.headers['content-length'], String(bytes.length));
  assert.equal(head.rawPayload.length, 0);
  assert.equal((await downloadsOf(app, id))[0]!.remaining, 3, 'HEAD is not a download');

  const res = await get(app, pathOf(link!.url));
  assert.equal(res.statusCode, 200);
  assert.ok(res.rawPayload.equals(bytes), 'the bytes as uploaded');
  assert.equal(sha256(res.rawPayload), file.sha256);
  assert.equal(res.headers['content-type'], file.contentType);
  assert.equal(res.headers['content-length'], String(bytes.length));
  assert.equal(res.headers['accept-ranges'], 'bytes');
  assert.equal(res.headers.etag, `"${file.sha256}"`);
  assert.equal(res.headers['cache-control'], 'private, no-store');
  assert.equal(
    res.headers['content-disposition'],
    `attachment; filename="_t_ _ guide _final_.pdf"; filename*=UTF-8''${encodeURIComponent(name)}`,
  );
  clock.advance(60_000);
  const after = await downloadsOf(app, id);
  assert.equal(after[0]!.remaining, 2, 'the download counted');
  assert.notEqual(after[0]!.url, link!.url, 'every read of the order mints a fresh link');
  assert.equal(Date.parse(after[0]!.expiresAt), Date.parse(link!.expiresAt) + 60_000, 'valid linkHours from the read');
});

test("an order is granted each attached file once, in the variant's order", async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Two Files');
  const first = await storeFile(app, shop.id, 'b-manual.pdf', randomBytes(100));
  const second = await storeFile(app, shop.id, 'a-audio.mp3', randomBytes(200), 'audio/mpeg');
  const selling = await sellFiles(app, api, shop, [first.id, second.id], { downloadLimit: 1 });
  const { id, downloads } = await selling.buy();
  assert.deepEqual(
    downloads.map((d) => [d.fileId, d.name, d.size, d.remaining]),
    [
      [first.id, 'b-manual.pdf', 100, 1],
      [second.id, 'a-audio.mp3', 200, 1],
    ],
  );
  // Granted again (a replacement, a retried completion): nothing new, nothing reset.
  assert.equal((await app.inject({ method: 'GET', url: pathOf(downloads[0]!.url) })).statusCode, 200);
  await app.db.kysely
    .transaction()
    .execute((trx) =>
      grantDownloads(trx, shop.id, id, selling.variantId, { downloadLimit: 9, linkHours: 1 }, app.ctx.clock.now()),
    );
  const again = await downloadsOf(app, id);
  assert.deepEqual(
    again.map((d) => [d.fileId, d.remaining]),
    [
      [first.id, 0],
      [second.id, 1],
    ],
  );
  const head = await app.inject({ method: 'HEAD', url: pathOf(again[0]!.url) });
  assert.equal(head.statusCode, 410, 'HEAD answers what GET would');
  const audio = await app.inject({ method: 'GET', url: pathOf(again[1]!.url) });
  assert.equal(audio.headers['content-type'], 'audio/mpeg');
  assert.equal(
    audio.headers['content-disposition'],
    `attachment; filename="a-audio.mp3"; filename*=UTF-8''a-audio.mp3`,
  );
  assert.deepEqual(await downloadsOfInvoice(app.db.kysely, app.secrets, shop.id, 'no-such-invoice', 0, 'http://x'), []);
});

test('a range is a 206 that does not count; a resumed range is served with the limit used up', async (t) => {
  const { app, shopId, bytes, buy } = await setup(t, { downloadLimit: 1 });
  const { id, downloads } = await buy();
  const url = pathOf(downloads[0]!.url);
  const size = bytes.length;

  const first = await get(app, url, { range: 'bytes=0-99' });
  assert.equal(first.statusCode, 206);
  assert.equal(first.headers['content-range'], `bytes 0-99/${size}`);
  assert.equal(first.headers['content-length'], '100');
  assert.ok(first.rawPayload.equals(bytes.subarray(0, 100)));
  assert.equal((await downloadsOf(app, id))[0]!.remaining, 0, 'a range from byte 0 starts a download: it counts');

  const resumed = await get(app, url, { range: 'bytes=100-' });
  assert.equal(resumed.statusCode, 206, 'resuming after the limit is used up is still served');
  assert.equal(resumed.headers['content-range'], `bytes 100-${size - 1}/${size}`);
  assert.ok(resumed.rawPayload.equals(bytes.subarray(100)));
  const suffix = await get(app, url, { range: 'bytes=-10' });
  assert.equal(suffix.statusCode, 206);
  assert.ok(suffix.rawPayload.equals(bytes.subarray(size - 10)));
  const etag = first.headers.etag as string;
  const matching = await get(app, url, { range: 'bytes=200-299', 'if-range': etag });
  assert.equal(matching.statusCode, 206, 'If-Range with the ETag: the range');
  assert.ok(matching.rawPayload.equals(bytes.subarray(200, 300)));

  // What would start a download again is refused: the whole file, a range from 0, a stale If-Range.
  assertError(json(await get(app, url)), 410, 'download_limit_reached');
  assertError(json(await get(app, url, { range: 'bytes=0-' })), 410, 'download_limit_reached');
  assertError(json(await get(app, url, { range: 'bytes=300-', 'if-range': '"stale"' })), 410, 'download_limit_reached');

  const unsatisfiable = await get(app, url, { range: `bytes=${size}-` });
  assert.equal(unsatisfiable.statusCode, 416);
  assert.equal(unsatisfiable.headers['content-range'], `bytes */${size}`);
  assertError(json(unsatisfiable), 416, 'range_not_satisfiable');

  const log = await downloadLogOfInvoice(app.db.kysely, shopId, id);
  assert.deepEqual(
    log.map((e) => [e.counted, e.bytes]),
    [
      [false, 100],
      [false, 10],
      [false, size - 100],
      [true, 100],
    ],
    'newest first: every download served, the bytes sent, only the first counted',
  );
});

test('a stale If-Range or several ranges serve the whole file (and count); limit 0 is unlimited', async (t) => {
  const { app, shopId, bytes, buy } = await setup(t, { downloadLimit: 0 });
  const { id, downloads } = await buy();
  assert.equal(downloads[0]!.remaining, null, 'null: unlimited');
  const url = pathOf(downloads[0]!.url);
  const stale = await get(app, url, { range: 'bytes=10-19', 'if-range': '"0000"' });
  assert.equal(stale.statusCode, 200);
  assert.ok(stale.rawPayload.equals(bytes));
  const multi = await get(app, url, { range: 'bytes=0-1, 5-6' });
  assert.equal(multi.statusCode, 200);
  assert.equal(multi.headers['content-length'], String(bytes.length));
  for (let n = 0; n < 8; n++) assert.equal((await get(app, url)).statusCode, 200);
  assert.equal((await downloadsOf(app, id))[0]!.remaining, null);
  const counted = (await downloadLogOfInvoice(app.db.kysely, shopId, id)).filter((e) => e.counted);
  assert.equal(counted.length, 10);
});

test('20 parallel downloads with a limit of 5 serve exactly 5; the others are 410 and count nothing', async (t) => {
  const { app, shopId, bytes, buy } = await setup(t, { downloadLimit: 5 });
  const { id, downloads } = await buy();
  const url = pathOf(downloads[0]!.url);
  const answers = await Promise.all(Array.from({ length: 20 }, () => get(app, url)));
  const served = answers.filter((a) => a.statusCode === 200);
  const refused = answers.filter((a) => a.statusCode === 410);
  assert.equal(served.length, 5);
  assert.equal(refused.length, 15);
  for (const a of served) assert.ok(a.rawPayload.equals(bytes));
  for (const a of refused) assert.equal(a.json().code, 'download_limit_reached');
  assert.equal((await downloadsOf(app, id))[0]!.remaining, 0);
  const log = await downloadLogOfInvoice(app.db.kysely, shopId, id);
  assert.equal(log.length, 5);
  assert.ok(log.every((e) => e.counted && e.bytes === bytes.length));
  const grant = await app.db.kysely
    .selectFrom('download_grants')
    .select('downloads')
    .where('invoice_id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(grant.downloads, 5);
});

test('an expired link is 410 (a page for browsers); the order page gives a fresh one', async (t) => {
  const { app, clock, buy } = await setup(t, { linkHours: 2 });
  const { id, downloads } = await buy();
  const url = pathOf(downloads[0]!.url);
  assert.equal(Date.parse(downloads[0]!.expiresAt), clock.now() + 2 * HOUR);
  clock.advance(2 * HOUR - 1);
  assert.equal((await get(app, url)).statusCode, 200, 'valid until its expiry');
  clock.advance(1);
  assertError(json(await get(app, url)), 410, 'link_expired');

  const page = await get(app, url, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
  assert.equal(page.statusCode, 410);
  assert.match(page.headers['content-type'] as string, /^text\/html/);
  assert.equal(page.headers['cache-control'], 'private, no-store');
  assert.match(page.body, /has expired/);
  assert.match(page.body, /order page/);
  assert.match(page.body, /Download Shop/, 'a link back to the shop');

  const fresh = (await downloadsOf(app, id))[0]!;
  assert.equal(fresh.remaining, 4, 'refusals counted nothing');
  assert.equal((await get(app, pathOf(fresh.url))).statusCode, 200);
});

test('a tampered or garbled token is 403 and counts nothing', async (t) => {
  const { app, shopId, buy } = await setup(t, { downloadLimit: 2 });
  const { id, downloads } = await buy();
  const path = pathOf(downloads[0]!.url);
  const token = path.split('/').pop()!;
  const base = path.slice(0, -token.length);
  const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);

  // Another expiry with the same MAC.
  const bytes = Buffer.from(token, 'base64url');
  bytes.writeUIntBE(bytes.readUIntBE(7, 6) + HOUR, 7, 6);
  // Another grant id (the next grant of the shop, were there one) with the same MAC.
  const other = Buffer.from(token, 'base64url');
  other.writeUIntBE(other.readUIntBE(1, 6) + 1, 1, 6);

  for (const bad of [
    flip(token, 40),
    flip(token, 3),
    bytes.toString('base64url'),
    other.toString('base64url'),
    token.slice(0, -1),
    'abc',
    `${token}A`,
  ]) {
    const res = await get(app, `${base}${bad}`);
    assertError(json(res), 403, 'forbidden');
  }
  const page = await get(app, `${base}${flip(token, 40)}`, { accept: 'text/html' });
  assert.equal(page.statusCode, 403);
  assert.match(page.body, /not valid/);
  assert.equal((await downloadsOf(app, id))[0]!.remaining, 2);
  assert.deepEqual(await downloadLogOfInvoice(app.db.kysely, shopId, id), []);
});

test("another shop's path refuses a valid link (403); the shop's subdomain serves it", async (t) => {
  const { app, subdomain, bytes, buy } = await setup(t);
  const { downloads } = await buy();
  const token = pathOf(downloads[0]!.url).split('/').pop()!;
  const other = await createShop(await owner(app), 'Other Shop');
  assertError(json(await get(app, `/v2/public/shops/${other.id}/downloads/${token}`)), 403, 'forbidden');
  assertError(json(await get(app, `/v2/public/shops/${other.subdomain}/downloads/${token}`)), 403, 'forbidden');
  assertError(json(await get(app, `/v2/public/shops/999999/downloads/${token}`)), 403, 'forbidden');
  const bySubdomain = await get(app, `/v2/public/shops/${subdomain}/downloads/${token}`);
  assert.equal(bySubdomain.statusCode, 200);
  assert.ok(bySubdomain.rawPayload.equals(bytes));
});

test('a full refund revokes the downloads (410); a partial one leaves them', async (t) => {
  const { app, api, shopId, buy } = await setup(t);
  const { id, downloads } = await buy();
  const url = pathOf(downloads[0]!.url);
  assertOk(await api.post(`/self/${shopId}/invoices/${id}/refund`, { amount: 1 }));
  assert.equal((await get(app, url)).statusCode, 200, 'a partial refund leaves the downloads');
  assert.equal((await downloadsOf(app, id)).length, 1);

  assertOk(await api.post(`/self/${shopId}/invoices/${id}/refund`, {}));
  assertError(json(await get(app, url)), 410, 'download_revoked');
  assertError(json(await get(app, url, { range: 'bytes=10-' })), 410, 'download_revoked');
  const page = await get(app, url, { accept: 'text/html' });
  assert.equal(page.statusCode, 410);
  assert.match(page.body, /refunded/);
  assert.deepEqual(await downloadsOf(app, id), [], 'the order shows no downloads any more');
  const log = await downloadLogOfInvoice(app.db.kysely, shopId, id);
  assert.equal(log.length, 1, 'the refused requests are not logged');
});

test('the owner sees every download on the order: time, IP, user agent, bytes, counted', async (t) => {
  const { app, api, clock, shopId, file, bytes, buy } = await setup(t);
  const { id, downloads } = await buy();
  const url = pathOf(downloads[0]!.url);
  const firstAt = clock.now();
  assert.equal((await get(app, url, { 'user-agent': 'Curl/8.0' })).statusCode, 200);
  clock.advance(1000);
  const longAgent = `Mozilla/5.0 ${'x'.repeat(1000)}`;
  assert.equal(
    (
      await app.inject({
        method: 'GET',
        url,
        headers: { 'user-agent': longAgent, range: 'bytes=5-9' },
        remoteAddress: '10.1.2.3',
      })
    ).statusCode,
    206,
  );
  const view = assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
  assert.deepEqual(view.downloads, [
    {
      fileId: file.id,
      name: file.name,
      at: new Date(firstAt + 1000).toISOString(),
      ip: '10.1.2.3',
      userAgent: longAgent.slice(0, 300),
      bytes: 5,
      counted: false,
    },
    {
      fileId: file.id,
      name: file.name,
      at: new Date(firstAt).toISOString(),
      ip: '127.0.0.1',
      userAgent: 'Curl/8.0',
      bytes: bytes.length,
      counted: true,
    },
  ]);
  const row = await app.db.kysely
    .selectFrom('download_log')
    .select('range')
    .where('invoice_id', '=', id)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  assert.equal(row.range, 'bytes=5-9');
});

test('the request log never shows a download token', async (t) => {
  const { redactUrl } = await import('../../src/http/request-log.js');
  const { app, buy } = await setup(t);
  const { downloads } = await buy();
  const path = pathOf(downloads[0]!.url);
  const token = path.split('/').pop()!;
  const redacted = redactUrl(path);
  assert.ok(!redacted.includes(token), redacted);
  assert.match(redacted, /\/downloads\/\[REDACTED\]$/);
  assert.ok(app);
});

function json(res: { statusCode: number; body: string }) {
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

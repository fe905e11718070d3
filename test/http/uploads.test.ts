import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { receiveImage, uploadRouteSchema, uploadUrl } from '../../src/http/uploads.js';
import { ok } from '../../src/schemas/common.js';
import { createDiskStorage } from '../../src/storage/file-storage.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk } from '../helpers/factories.js';
import { multipartForm as form, icoImage } from '../helpers/multipart.js';

/** No product route exists yet: two test-only upload routes on the production app. */
async function uploadApp(t: TestContext, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const app = await build(t, env);
  app.post('/test-upload', { schema: { ...uploadRouteSchema(), tags: ['Test'] } }, async (request) =>
    ok({ url: uploadUrl(await receiveImage(request)) }),
  );
  app.post('/test-upload/favicon', { schema: { ...uploadRouteSchema('favicon'), tags: ['Test'] } }, async (request) =>
    ok({ url: uploadUrl(await receiveImage(request, 'favicon')) }),
  );
  return app;
}

async function upload(
  app: FastifyInstance,
  file: Buffer | string,
  opts: { url?: string; filename?: string; type?: string } = {},
) {
  const body = form([
    {
      name: 'file',
      data: file,
      filename: opts.filename ?? 'upload.bin',
      type: opts.type ?? 'application/octet-stream',
    },
  ]);
  const res = await app.inject({ method: 'POST', url: opts.url ?? '/test-upload', ...body });
  return { status: res.statusCode, body: res.json() };
}

const secretExif = { IFD0: { Copyright: 'secret-owner' } };

function solid(width: number, height: number): sharp.Sharp {
  return sharp({ create: { width, height, channels: 4, background: '#c0ffee' } });
}

/** Three 4×4 frames stacked; sharp writes them as an animation. */
function frames(): sharp.Sharp {
  const raw = Buffer.alloc(4 * 4 * 4 * 3);
  for (let i = 0; i < raw.length; i += 4)
    raw.set([i < 64 ? 255 : 0, i >= 64 && i < 128 ? 255 : 0, i >= 128 ? 255 : 0, 255], i);
  return sharp(raw, { raw: { width: 4, height: 12, channels: 4, pageHeight: 4 } });
}

function uploadedFiles(app: FastifyInstance): string[] {
  return readdirSync(join(app.config.dataDir, 'uploads'));
}

test('PNG, JPEG, WebP and animated GIF round-trip, re-encoded without their metadata', async (t) => {
  const app = await uploadApp(t);
  const cases = [
    { ext: 'png', type: 'image/png', file: await solid(6, 4).png().withMetadata({ exif: secretExif }).toBuffer() },
    { ext: 'jpg', type: 'image/jpeg', file: await solid(6, 4).jpeg().withMetadata({ exif: secretExif }).toBuffer() },
    {
      ext: 'webp',
      type: 'image/webp',
      file: await frames().webp().withMetadata({ exif: secretExif }).toBuffer(),
      pages: 3,
    },
    {
      ext: 'gif',
      type: 'image/gif',
      file: await frames()
        .gif({ delay: [100, 100, 100] })
        .toBuffer(),
      pages: 3,
    },
  ];
  for (const c of cases) {
    if (c.ext !== 'gif') assert.ok(c.file.includes('secret-owner'), `the ${c.ext} sent carries EXIF`);
    // The declared type and name are wrong on purpose: only the bytes count.
    const { url } = assertOk(await upload(app, c.file, { filename: 'photo.txt', type: 'text/plain' }));
    assert.match(url, new RegExp(`^/uploads/[A-Za-z0-9_-]{24}\\.${c.ext}$`), c.ext);
    const served = await app.inject({ method: 'GET', url });
    assert.equal(served.statusCode, 200, c.ext);
    assert.equal(served.headers['content-type'], c.type);
    assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    assert.equal(Number(served.headers['content-length']), served.rawPayload.length);
    const meta = await sharp(served.rawPayload, { animated: true }).metadata();
    assert.equal(meta.format, c.ext === 'jpg' ? 'jpeg' : c.ext);
    assert.equal(meta.exif, undefined, `${c.ext} keeps no EXIF`);
    assert.ok(!served.rawPayload.includes('secret-owner'), `${c.ext} bytes carry no metadata`);
    if (c.pages) assert.equal(meta.pages, c.pages, `${c.ext} stays animated`);
  }
  assert.equal(uploadedFiles(app).length, cases.length);
});

test('EXIF orientation is applied before the metadata is dropped', async (t) => {
  const app = await uploadApp(t);
  const sideways = await solid(8, 6).jpeg().withMetadata({ orientation: 6, exif: secretExif }).toBuffer();
  const { url } = assertOk(await upload(app, sideways, { type: 'image/jpeg', filename: 'x.jpg' }));
  const meta = await sharp((await app.inject({ method: 'GET', url })).rawPayload).metadata();
  assert.deepEqual([meta.width, meta.height, meta.orientation, meta.exif], [6, 8, undefined, undefined]);
});

test('ICO is accepted for favicons only, and stored as sent', async (t) => {
  const app = await uploadApp(t);
  const ico = await icoImage();
  const { url } = assertOk(
    await upload(app, ico, { url: '/test-upload/favicon', filename: 'favicon.ico', type: 'image/x-icon' }),
  );
  assert.match(url, /^\/uploads\/[A-Za-z0-9_-]{24}\.ico$/);
  const served = await app.inject({ method: 'GET', url });
  assert.equal(served.headers['content-type'], 'image/x-icon');
  assert.deepEqual(served.rawPayload, ico);
  const png = await solid(16, 16).png().toBuffer();
  assert.match(
    assertOk(await upload(app, png, { url: '/test-upload/favicon' })).url,
    /\.png$/,
    'favicons may be PNG too',
  );

  const refused = await upload(app, ico, { filename: 'favicon.ico', type: 'image/x-icon' });
  assertError(refused, 415, 'unsupported_media_type');
  assert.deepEqual(refused.body.errors, ['file: must be a PNG, JPEG, WebP or GIF image']);
});

test('files that are not accepted images are a 415, whatever they claim to be', async (t) => {
  const app = await uploadApp(t);
  const png = await solid(4, 4).png().toBuffer();
  const bad = {
    'text named x.png': { file: 'just some text, honest', filename: 'x.png', type: 'image/png' },
    svg: {
      file: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      filename: 'x.svg',
      type: 'image/svg+xml',
    },
    'PNG magic, garbage after': {
      file: Buffer.concat([png.subarray(0, 40), Buffer.from('garbage '.repeat(8))]),
      filename: 'x.png',
      type: 'image/png',
    },
    'empty file': { file: '', filename: 'x.png', type: 'image/png' },
    'a PDF': { file: '%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\n', filename: 'x.png', type: 'image/png' },
  };
  for (const [what, b] of Object.entries(bad)) {
    const res = await upload(app, b.file, b);
    assertError(res, 415, 'unsupported_media_type');
    assert.ok(res.body.errors[0].startsWith('file: '), what);
  }
  assert.deepEqual(uploadedFiles(app), [], 'nothing refused was stored');
});

test('an upload over the limit is a 413 in the envelope; so is an image of too many pixels', async (t) => {
  const app = await uploadApp(t, { UPLOAD_LIMIT_BYTES: '2048' });
  const noisy = await sharp({
    create: {
      width: 64,
      height: 64,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  assert.ok(noisy.length > 2048);
  const res = await upload(app, noisy, { type: 'image/png' });
  assertError(res, 413, 'payload_too_large');
  assert.deepEqual(res.body.errors, ['file: must be at most 2048 bytes']);
  assertOk(await upload(app, await solid(4, 4).png().toBuffer()));

  const roomy = await uploadApp(t);
  const huge = await sharp(Buffer.alloc(8000 * 6000), { raw: { width: 8000, height: 6000, channels: 1 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  assertError(await upload(roomy, huge), 413, 'payload_too_large');
  assert.deepEqual(uploadedFiles(roomy), []);
});

test('a request without a usable file part is a 4xx in the envelope', async (t) => {
  const app = await uploadApp(t);
  const png = await solid(4, 4).png().toBuffer();
  const post = (payload: Buffer | string, headers: Record<string, string>) =>
    app.inject({ method: 'POST', url: '/test-upload', payload, headers });
  const reply = async (p: Promise<{ statusCode: number; json(): any }>) => {
    const res = await p;
    return { status: res.statusCode, body: res.json() };
  };

  // A part without a filename is a text field, not a file.
  for (const parts of [
    [{ name: 'file', data: 'not a file part' }],
    [{ name: 'image', data: png, filename: 'x.png', type: 'image/png' }],
    [],
  ]) {
    const res = await reply(app.inject({ method: 'POST', url: '/test-upload', ...form(parts) }));
    assertError(res, 400, 'validation_error');
    assert.deepEqual(res.body.errors, ['file: is required']);
  }
  const broken = await reply(post('--nope\r\ngarbage', { 'content-type': 'multipart/form-data' }));
  assertError(broken, 400, 'validation_error');

  assertError(
    await reply(post(JSON.stringify({ file: 'x' }), { 'content-type': 'application/json' })),
    415,
    'unsupported_media_type',
  );
  assertError(await reply(app.inject({ method: 'POST', url: '/test-upload' })), 415, 'unsupported_media_type');
  assertError(await reply(post(png, { 'content-type': 'image/png' })), 415, 'unsupported_media_type');
  const extraField = form([
    { name: 'note', data: 'hello' },
    { name: 'file', data: png, filename: 'x.png', type: 'image/png' },
  ]);
  assertOk(await reply(app.inject({ method: 'POST', url: '/test-upload', ...extraField })));
});

test('JSON routes still take JSON, and refuse multipart with a 415', async (t) => {
  const app = await uploadApp(t);
  const api = await owner(app);
  const body = form([{ name: 'name', data: 'Multipart Shop' }]);
  const res = await app.inject({
    method: 'POST',
    url: '/self/shops',
    headers: { ...body.headers, authorization: `Bearer ${api.key}` },
    payload: body.payload,
  });
  assertError({ status: res.statusCode, body: res.json() }, 415, 'unsupported_media_type');
  assert.equal(assertOk(await api.post('/self/shops', { name: 'JSON Shop' })).name, 'JSON Shop');
  assert.equal(assertOk(await api.get('/self/shops')).length, 1);
});

test('GET /uploads/<name> is a 404 for unknown, malformed, escaping and removed names', async (t) => {
  const app = await uploadApp(t);
  const { url } = assertOk(await upload(app, await solid(4, 4).png().toBuffer()));
  const name = url.slice('/uploads/'.length);
  const served = await app.inject({ method: 'GET', url });
  assert.equal(served.statusCode, 200);
  assert.ok(served.headers['ratelimit-limit'], 'counted against the public rate limit');

  for (const path of [
    '/uploads/../../etc/passwd',
    '/uploads/..%2F..%2Fetc%2Fpasswd',
    '/uploads/nope.png',
    '/uploads/%2e%2e/passwd',
    `/uploads/${'a'.repeat(24)}.png`,
    `/uploads/${name}.svg`,
  ]) {
    const res = await app.inject({ method: 'GET', url: path });
    assertError({ status: res.statusCode, body: res.json() }, 404, 'not_found');
  }
  // `/uploads/%2e%2e` is `/` to a URL parser (light-my-request's too): the operator's page, never a file.
  const dots = await app.inject({ method: 'GET', url: '/uploads/%2e%2e' });
  assert.match(String(dots.headers['content-type']), /^text\/html/);

  await app.storage.remove(name);
  const gone = await app.inject({ method: 'GET', url });
  assertError({ status: gone.statusCode, body: gone.json() }, 404, 'not_found');
  assert.equal(gone.json().message, 'Upload not found.');
  await app.storage.remove(name); // removing twice is fine
});

test('the OpenAPI document shows the multipart body and the public image route', async (t) => {
  const app = await uploadApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/test-upload'].post;
  assert.deepEqual(Object.keys(op.requestBody.content), ['multipart/form-data']);
  const body = op.requestBody.content['multipart/form-data'].schema;
  assert.deepEqual(body.required, ['file']);
  assert.equal(body.properties.file.format, 'binary');
  assert.match(op.description, /one part named `file`/);
  assert.ok(op.responses['413'] && op.responses['415']);
  assert.match(doc.paths['/test-upload/favicon'].post.description, /ICO/);

  const get = doc.paths['/uploads/{name}'].get;
  assert.deepEqual(get.tags, ['Uploads']);
  assert.deepEqual(get.security, []);
  assert.ok(get.responses['200'].content['image/png']);
  assert.ok(get.responses['404']);
});

test('disk storage only takes generated names and keeps to its directory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-storage-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const storage = createDiskStorage(join(dir, 'uploads'));
  const name = 'abcdefghij_KLMNOP-123456.png';
  await storage.put(name, Buffer.from('bytes'));
  const opened = await storage.open(name);
  assert.equal(opened?.size, 5);
  const chunks: Buffer[] = [];
  for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
  assert.equal(Buffer.concat(chunks).toString(), 'bytes');
  await assert.rejects(storage.put(name, Buffer.from('again')), /EEXIST/, 'names are never reused');

  for (const bad of [
    '../escape-0123456789.png',
    '..',
    'short.png',
    `${'a'.repeat(24)}.svg`,
    `${'a'.repeat(24)}.PNG`,
    `${'a'.repeat(65)}.png`,
    `a/${'b'.repeat(24)}.png`,
    `${'a'.repeat(24)}.png\n`,
  ]) {
    await assert.rejects(storage.put(bad, Buffer.from('x')), /invalid upload name/, bad);
    await assert.rejects(storage.remove(bad), /invalid upload name/, bad);
    assert.equal(await storage.open(bad), undefined, bad);
  }
  assert.equal(await storage.open('../../../../etc/passwd'), undefined);
  await storage.remove(null);
  await storage.remove(undefined);
  await storage.remove(`${'z'.repeat(24)}.gif`);
  // Derived copies (a size for srcset) live with the image and go with it.
  await storage.putVariant(name, 'w640.webp', Buffer.from('small'));
  assert.equal((await storage.readVariant(name, 'w640.webp'))?.toString(), 'small');
  assert.equal(await storage.readVariant(name, 'w320.webp'), undefined, 'not made yet');
  for (const bad of ['../w640.webp', 'w640.png', 'w640.webp/..', '.'])
    await assert.rejects(storage.putVariant(name, bad, Buffer.from('x')), /invalid variant name/, bad);
  assert.equal(await storage.readVariant('../../etc/passwd', 'w640.webp'), undefined);
  await storage.remove(name);
  assert.equal(await storage.open(name), undefined);
  assert.equal(await storage.readVariant(name, 'w640.webp'), undefined, 'gone with its image');
  assert.deepEqual(readdirSync(join(dir, 'uploads', '.variants')), [], 'nothing left of it');
  assert.deepEqual(readdirSync(dir), ['uploads']);
});

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { multipartForm, pngImage } from '../helpers/multipart.js';

/**
 * Issue 36, L9: a 5 KB PNG whose header claims 8000×5000 (40 megapixels) took 5 s of CPU to
 * decode and encode again. Images over UPLOAD_MAX_PIXELS are refused from their header, before
 * anything is decoded.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A small PNG whose header claims `width`×`height` (8-bit greyscale): its data is one row of zeros. */
function claimedPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function uploadThumbnail(app: FastifyInstance, url: string, key: string, png: Buffer) {
  const body = multipartForm([{ name: 'file', data: png, filename: 'big.png', type: 'image/png' }]);
  const res = await app.inject({
    method: 'POST',
    url,
    payload: body.payload,
    headers: { ...body.headers, authorization: `Bearer ${key}` },
  });
  return { status: res.statusCode, body: res.json() };
}

test('an image whose header claims 8000×5000 pixels is a 413 before it is decoded', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId, productId } = await sellingShop(api);
  const url = `/self/${shopId}/v2/products/${productId}/thumbnail`;
  const png = claimedPng(8000, 5000);
  assert.ok(png.length < 10_000, `a small file: ${png.length} bytes`);
  const res = await uploadThumbnail(app, url, api.key, png);
  assertError(res, 413, 'payload_too_large');
  assert.deepEqual(res.body.errors, ['file: must have at most 24000000 pixels (width × height)']);
  assert.deepEqual(readdirSync(join(app.config.dataDir, 'uploads')), [], 'nothing was stored');
  assert.equal(assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`)).thumbnail ?? null, null);
  assertOk(await uploadThumbnail(app, url, api.key, await pngImage(16, 16)));
});

test('UPLOAD_MAX_PIXELS sets the limit', async (t) => {
  assert.equal(loadConfig({}).uploadMaxPixels, 24_000_000);
  const app = await build(t, { UPLOAD_MAX_PIXELS: '200' });
  const api = await owner(app);
  const { shopId, productId } = await sellingShop(api);
  const url = `/self/${shopId}/v2/products/${productId}/thumbnail`;
  assertError(await uploadThumbnail(app, url, api.key, await pngImage(16, 16)), 413, 'payload_too_large');
  assertOk(await uploadThumbnail(app, url, api.key, await pngImage(10, 20)));
});

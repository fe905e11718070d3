import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { downloadLogOfInvoice } from '../../src/modules/files/index.js';
import { build, engine, owner } from '../helpers/build.js';
import { fileShop, pathOf } from '../helpers/downloads.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * A download is streamed from disk, never held whole: a 1 GiB file goes out through a listening
 * server while this process's RSS stays within 150 MB of what it was before. A download cut
 * short is logged with the bytes it got.
 */

const MiB = 1024 * 1024;

/** `mebibytes` MiB of one random MiB repeated, made as it is read. */
function generated(mebibytes: number): Readable {
  const block = randomBytes(MiB);
  let left = mebibytes;
  return new Readable({
    read() {
      this.push(left-- > 0 ? block : null);
    },
  });
}

function request(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, resolve).once('error', reject));
}

async function listening(app: Awaited<ReturnType<typeof build>>): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

test('a 1 GiB download from disk keeps the RSS within 150 MB', {
  skip: engine === 'postgres' ? 'storage, not database: measured on SQLite' : false,
}, async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await fileShop(app, api, { name: 'big.bin', body: generated(1024) }, { downloadLimit: 1 });
  assert.equal(shop.file.size, 1024 * MiB);
  const { id, downloads } = await shop.buy();
  const base = await listening(app);

  const start = process.memoryUsage.rss();
  let peak = start;
  const res = await request(`${base}${pathOf(downloads[0]!.url)}`);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-length'], String(1024 * MiB));
  const hash = createHash('sha256');
  let received = 0;
  let chunks = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    hash.update(chunk);
    received += chunk.length;
    if (++chunks % 16 === 0) peak = Math.max(peak, process.memoryUsage.rss());
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  assert.equal(received, 1024 * MiB);
  assert.equal(hash.digest('hex'), shop.file.sha256);
  const growth = (peak - start) / MiB;
  assert.ok(growth < 150, `RSS grew by ${growth.toFixed(1)} MB during the download`);
  // The client has every byte (Content-Length) a moment before the server has finished its response and its log.
  const logged = async () => (await downloadLogOfInvoice(app.db.kysely, shop.shopId, id))[0]?.bytes;
  await waitUntil(async () => (await logged()) === 1024 * MiB, 'the download to be logged with its bytes');
});

test('a download cut short is logged with the bytes sent until then', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const shop = await fileShop(app, api, { name: 'big.bin', body: generated(64) });
  const { id, downloads } = await shop.buy();
  const base = await listening(app);

  const res = await request(`${base}${pathOf(downloads[0]!.url)}`);
  assert.equal(res.statusCode, 200);
  await new Promise<void>((resolve) => res.once('data', () => resolve()));
  res.destroy();
  const bytesLogged = async () => (await downloadLogOfInvoice(app.db.kysely, shop.shopId, id))[0]?.bytes ?? 0;
  await waitUntil(async () => (await bytesLogged()) > 0, 'the cut download to be logged');
  const bytes = await bytesLogged();
  assert.ok(bytes < 64 * MiB, `${bytes} bytes of a cut download`);
  const [entry] = await downloadLogOfInvoice(app.db.kysely, shop.shopId, id);
  assert.equal(entry!.counted, true, 'a download cut short counted (it was started)');
});

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { bodyDeadline } from '../../src/http/body-timeout.js';
import { build, owner } from '../helpers/build.js';
import { assertOk } from '../helpers/factories.js';
import { multipartForm } from '../helpers/multipart.js';

/**
 * Issue 36, L3: a request body trickling one byte every 15 s stayed open for minutes. A body now
 * has REQUEST_BODY_TIMEOUT_MS plus a second per REQUEST_BODY_MIN_RATE bytes it delivered.
 * The tests configure a short time and send far slower than it (nothing at all after the first
 * byte), so they depend on no machine's speed: the cut comes whenever the timer runs.
 */

async function listening(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}

/** Sends `head` and `firstBytes` of a body, then nothing; answers all the server wrote until it closed the connection. */
function trickle(port: number, head: string, firstBytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head + firstBytes));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    // A bound on a hang only (the server never cutting the body), far beyond any busy machine.
    socket.setTimeout(60_000, () => socket.destroy(new Error('the server kept the trickling request open for 60 s')));
  });
}

test('a body that stops arriving is cut with a 408 and its connection closed', async (t) => {
  const app = await build(t, { REQUEST_BODY_TIMEOUT_MS: '300' });
  const api = await owner(app);
  const shop = assertOk(await api.post('/self/shops', { name: 'Slow Loris' }));
  const port = await listening(app);
  const payload = JSON.stringify({ email: 'b@example.com', title: 'Help', message: 'Please.' });
  const answer = await trickle(
    port,
    `POST /v2/public/shops/${shop.id}/tickets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${payload.length}\r\n\r\n`,
    payload.slice(0, 1),
  );
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.match(answer, /connection: close/i);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  assert.equal(body.code, 'request_timeout');
  assert.deepEqual(body.errors, ['body: arrived too slowly']);
  assert.equal(assertOk(await api.get(`/self/${shop.id}/tickets`)).totalCount, 0, 'nothing was created');

  // A chunked body is held to the same rule; a multipart upload too.
  const chunked = await trickle(
    port,
    `POST /v2/public/shops/${shop.id}/tickets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n',
    '1\r\n{\r\n',
  );
  assert.match(chunked, /^HTTP\/1\.1 408 /);
  const upload = await trickle(
    port,
    `POST /self/${shop.id}/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${api.key}\r\n` +
      'Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 1000000\r\n\r\n',
    '--x\r\n',
  );
  assert.match(upload, /^HTTP\/1\.1 408 /);
});

test('a large upload sent at once is unaffected by a short timeout', async (t) => {
  const app = await build(t, { REQUEST_BODY_TIMEOUT_MS: '2000' });
  const api = await owner(app);
  const shop = assertOk(await api.post('/self/shops', { name: 'Quick' }));
  const port = await listening(app);
  const form = multipartForm([
    { name: 'file', data: Buffer.alloc(4 * 1024 * 1024, 7), filename: 'big.bin', type: 'application/octet-stream' },
  ]);
  const res = await fetch(`http://127.0.0.1:${port}/self/${shop.id}/files`, {
    method: 'POST',
    headers: { ...form.headers, authorization: `Bearer ${api.key}` },
    body: new Uint8Array(form.payload),
  });
  assert.equal(res.status, 201, await res.text());
});

test('the time a body has grows with the bytes it delivered (a minimum rate, not a total time)', () => {
  const limits = { timeoutMs: 30_000, minRate: 8192 };
  assert.equal(bodyDeadline(1000, 0, limits), 31_000);
  assert.equal(bodyDeadline(1000, 8192, limits), 32_000);
  // A 2 GiB upload at 8 KiB/s or faster never runs out of time.
  assert.equal(bodyDeadline(0, 2 * 1024 ** 3, limits), 30_000 + 262_144_000);
  const config = loadConfig({});
  assert.deepEqual({ ...config.requestBody }, { timeoutMs: 30_000, minRate: 8192 }, 'the defaults');
  assert.equal(loadConfig({ REQUEST_BODY_TIMEOUT_MS: '0' }).requestBody.timeoutMs, 0, '0 turns it off');
});

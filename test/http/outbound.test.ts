import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import type { Resolver } from '../../src/http/address-guard.js';
import { OutboundError, postGuarded } from '../../src/http/outbound.js';

/** A local HTTP server counting connections and requests; `handle` answers them. */
async function server(t: TestContext, handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen = { connections: 0, requests: 0 };
  const srv = createServer((req, res) => {
    seen.requests++;
    req.resume();
    req.on('end', () => handle(req, res));
  });
  srv.on('connection', () => seen.connections++);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        srv.closeAllConnections();
        srv.close(() => resolve());
      }),
  );
  return { port: (srv.address() as AddressInfo).port, seen };
}

/** DNS that answers `addresses` for every name, counting the questions. */
function fakeDns(...addresses: string[]): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

const call = (url: string, options: Partial<Parameters<typeof postGuarded>[1]> = {}) =>
  postGuarded(
    { url, headers: { 'content-type': 'text/plain' }, body: 'hello' },
    { timeoutMs: 60_000, allowPrivate: false, maxResponseBytes: 1024, ...options },
  );

test('a host name whose DNS answers a private address is refused at connect time, before any byte is sent', async (t) => {
  const { port, seen } = await server(t, (_req, res) => res.end('should not be reached'));
  // Rebinding: the name was public when the URL was saved; now DNS answers loopback.
  for (const dns of [
    fakeDns('127.0.0.1'),
    fakeDns('93.184.216.34', '127.0.0.1'),
    fakeDns('::1'),
    fakeDns('::ffff:127.0.0.1'),
  ]) {
    await assert.rejects(call(`http://rebind.test:${port}/deliver`, { resolve: dns }), (err: Error) => {
      assert.ok(err instanceof OutboundError);
      assert.match(err.message, /^refused: rebind\.test resolves to a non-public address/);
      return true;
    });
    // One question per call: the answer checked is the answer the socket connects to.
    assert.deepEqual(dns.asked, ['rebind.test']);
  }
  assert.deepEqual(seen, { connections: 0, requests: 0 });
});

test('IP literals are checked before connecting, and only http(s) without credentials is called', async (t) => {
  const { port, seen } = await server(t, (_req, res) => res.end('no'));
  const dns = fakeDns('127.0.0.1');
  for (const url of [
    `http://127.0.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://0x7f.1:${port}/`,
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/',
  ]) {
    await assert.rejects(call(url, { resolve: dns }), /^OutboundError: refused: /, url);
  }
  for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'not a url', 'http://user:pw@example.com/']) {
    await assert.rejects(call(url, { resolve: dns }), /^OutboundError: refused: /, url);
  }
  assert.deepEqual(dns.asked, [], 'literals are never looked up');
  assert.deepEqual(seen, { connections: 0, requests: 0 });
});

test('with private addresses allowed the call goes through; redirects are answers, not followed', async (t) => {
  const { port, seen } = await server(t, (req, res) => {
    if (req.url === '/moved') res.writeHead(302, { location: `http://127.0.0.1:${port}/other` }).end();
    else res.end('fine');
  });
  const ok = await call(`http://127.0.0.1:${port}/deliver`, { allowPrivate: true });
  assert.deepEqual([ok.status, ok.body.toString(), ok.truncated], [200, 'fine', false]);
  const moved = await call(`http://localhost:${port}/moved`, { allowPrivate: true });
  assert.equal(moved.status, 302);
  assert.equal(seen.requests, 2, 'the redirect target was not called');
});

// The timeout only bounds a hang (a client that kept reading would never finish); it decides nothing.
test('an answer longer than the cap is cut there and the connection dropped, even one that never ends', {
  timeout: 600_000,
}, async (t) => {
  let closed!: () => void;
  const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
  let written = 0;
  const { port } = await server(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const pump = () => {
      // Endless: writes whenever the socket takes more, until the client hangs up.
      while (!res.destroyed && res.write(chunk)) written += chunk.length;
    };
    res.on('drain', pump);
    res.on('close', closed);
    pump();
  });
  const answer = await call(`http://127.0.0.1:${port}/stream`, { allowPrivate: true, maxResponseBytes: 64 * 1024 });
  assert.equal(answer.truncated, true);
  assert.equal(answer.body.length, 64 * 1024);
  await serverSawClose;
  assert.ok(written < 64 * 1024 * 1024, `${written} bytes were written before the client hung up`);
});

test('an endpoint that never answers fails with the deadline, as an error saying so', async (t) => {
  // The server holds every request unanswered (closed when the test ends).
  const { port } = await server(t, () => undefined);
  await assert.rejects(
    call(`http://127.0.0.1:${port}/`, { allowPrivate: true, timeoutMs: 200 }),
    /^OutboundError: no answer within 200 ms$/,
  );
});

import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

/**
 * A local HTTPS server (self-signed, trusted by the test runner through NODE_EXTRA_CA_CERTS)
 * that hands each request, with its parsed JSON body, to `handle`; closed when the test ends.
 */
export async function httpsServer(
  t: TestContext,
  handle: (body: any, req: IncomingMessage, res: ServerResponse) => void,
) {
  const server: Server = createServer(
    { key: readFileSync('test/fixtures/tls/key.pem'), cert: readFileSync('test/fixtures/tls/cert.pem') },
    (req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk));
      req.on('end', () => handle(raw ? JSON.parse(raw) : undefined, req, res));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  server.unref();
  return { url: `https://localhost:${(server.address() as AddressInfo).port}/deliver` };
}

/** An HTTPS endpoint that records what it receives and answers with `respond`. */
export async function httpsEndpoint(t: TestContext, respond: (body: any) => { status: number; body: string }) {
  const received: any[] = [];
  const { url } = await httpsServer(t, (body, _req, res) => {
    received.push(body);
    const answer = respond(body);
    res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
  });
  return { url, received };
}

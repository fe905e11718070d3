import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

/**
 * A local HTTPS endpoint (self-signed, trusted by the test runner through NODE_EXTRA_CA_CERTS)
 * that records what it receives and answers with `respond`.
 */
export async function httpsEndpoint(t: TestContext, respond: (body: any) => { status: number; body: string; delayMs?: number }) {
  const received: any[] = [];
  const server: Server = createServer({ key: readFileSync('test/fixtures/tls/key.pem'), cert: readFileSync('test/fixtures/tls/cert.pem') }, (req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      received.push(body);
      const answer = respond(body);
      setTimeout(() => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body), answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  server.unref();
  return { url: `https://localhost:${(server.address() as AddressInfo).port}/deliver`, received };
}

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { onEnd, owner } from './build.js';
import { assertOk, sellingShop } from './factories.js';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A local HTTP endpoint for webhooks: records every request, in order, and answers
 * `status(parsed body)` (200 by default). Closed when the test ends.
 */
export async function webhookReceiver(
  t: TestContext,
  status: (body: any) => number = () => 200,
): Promise<{ url: string; received: ReceivedRequest[] }> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(status(JSON.parse(body))).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onEnd(
    t,
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

/**
 * A selling shop whose one webhook endpoint (a webhookReceiver answering `status`) takes
 * `invoice.created`, and a checkout that queued one delivery to it: the start of the webhook
 * outbox's retry tests. `delivery()` reads that delivery's status, attempts and next attempt.
 */
export async function queuedDelivery(t: TestContext, app: FastifyInstance, status: (body: any) => number) {
  const api = await owner(app);
  const shop = await sellingShop(api);
  const sink = await webhookReceiver(t, status);
  assertOk(await api.post(`/self/${shop.shopId}/webhooks`, { url: sink.url, events: ['invoice.created'] }));
  assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'hook@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.keysVariant, quantity: 1 }],
    }),
  );
  const delivery = () =>
    app.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'next_attempt_at'])
      .executeTakeFirstOrThrow();
  return { sink, delivery };
}

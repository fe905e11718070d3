import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { Deleted, ok, ownerResponses, Page, PageQuery, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Webhooks'];
const delivery =
  'Events are signed per the Standard Webhooks specification (headers webhook-id, webhook-timestamp, webhook-signature: ' +
  'v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">), delivered at least once (a retry keeps webhook-id: deduplicate on it), ' +
  'retried with backoff and jitter for about 3 days; a 2xx within 15 s is success, redirects are not followed, 410 turns the endpoint off. ' +
  'Order: events about the same object reach an endpoint in the order they happened, one at a time — the next is sent only after the ' +
  'one before it succeeded or finally failed. The object is the invoice for invoice.* and feedback.created, the ticket for ticket.*, ' +
  'the customer for customer.balance_changed, the product for product.out_of_stock, the license for license.*. Events about different objects are not ordered ' +
  "against each other: they go out side by side, up to WEBHOOK_CONCURRENCY (default 8) in flight per endpoint, and one object's " +
  'failing delivery does not hold up the others. invoice.* events carry, besides invoiceId and their own fields (total, currency, ' +
  'gateway, commission, partInvoiceId, quantity), `invoice`: the invoice exactly as GET /self/{shopId}/invoices/{invoiceId} showed it ' +
  'right after the change (deliverables included), so no follow-up call is needed.';

const resend =
  'Sends the event of this delivery to this endpoint again, like a dashboard\'s "Resend": the same event id (the webhook-id header) ' +
  'and the same payload, so a receiver that deduplicates on webhook-id sees the event it already knows; the timestamp and ' +
  'signature are made afresh. The endpoint has one delivery per event, so this re-arms that delivery rather than adding ' +
  'another: whatever its state (pending, being sent, succeeded or failed) it becomes pending and due now, and the delivery ' +
  'worker sends it on its next pass (within WEBHOOK_WORKER_INTERVAL_MS, default 1 s). Its attempts in the deliveries log are ' +
  'numbered on from the earlier ones; if this one fails, it is retried on the usual schedule while retries remain (a delivery ' +
  'that had used them all gets this one attempt). It keeps its place among the events about the same object: if an older ' +
  'event about that object is still unfinished for this endpoint, it goes right after that one. A send already in flight ' +
  "finishes and is logged, but no longer decides the delivery's state. 404 when the delivery is not one of this endpoint's " +
  '(deleting an endpoint deletes its deliveries); 409 when the endpoint is disabled: enable it first. Answers the delivery ' +
  'as it now stands.';

export const webhookOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;
  const { clock } = app.ctx;
  const { allowPrivate, timeoutMs } = app.config.webhooks;

  app.get('/:shopId/webhooks', {
    schema: {
      tags,
      summary: 'List webhook endpoints',
      params: ShopParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.Webhook)),
    },
    handler: async (request) => ok(await service.listWebhooks(db, currentShop(request).id, request.query)),
  });

  app.post('/:shopId/webhooks', {
    schema: {
      tags,
      summary: 'Register a webhook endpoint',
      description: `${delivery} The signing secret is in this answer only.`,
      params: ShopParams,
      body: schema.WebhookInput,
      response: ownerResponses(schema.CreatedWebhook),
    },
    handler: async (request) =>
      ok(
        await service.createWebhook(db, app.secrets, currentShop(request).id, request.body, allowPrivate, clock.now()),
      ),
  });

  app.get('/:shopId/webhooks/:webhookId', {
    schema: {
      tags,
      summary: 'Get one webhook endpoint',
      params: schema.WebhookParams,
      response: ownerResponses(schema.Webhook),
    },
    handler: async (request) => ok(await service.getWebhook(db, currentShop(request).id, request.params.webhookId)),
  });

  app.put('/:shopId/webhooks/:webhookId', {
    schema: {
      tags,
      summary: 'Replace a webhook endpoint',
      description: 'Enabling it again clears disabledReason.',
      params: schema.WebhookParams,
      body: schema.WebhookInput,
      response: ownerResponses(schema.Webhook),
    },
    handler: async (request) =>
      ok(
        await service.updateWebhook(
          db,
          currentShop(request).id,
          request.params.webhookId,
          request.body,
          allowPrivate,
          clock.now(),
        ),
      ),
  });

  app.delete('/:shopId/webhooks/:webhookId', {
    schema: {
      tags,
      summary: 'Delete a webhook endpoint and its pending deliveries',
      params: schema.WebhookParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) => ok(await service.deleteWebhook(db, currentShop(request).id, request.params.webhookId)),
  });

  app.get('/:shopId/webhooks/:webhookId/deliveries', {
    schema: {
      tags,
      summary: 'Delivery attempts, newest first',
      description:
        'One row per attempt. deliveryId names the delivery (one per event and endpoint) that ' +
        'POST /self/{shopId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend sends again.',
      params: schema.WebhookParams,
      querystring: PageQuery,
      response: ownerResponses(Page(schema.Attempt)),
    },
    handler: async (request) =>
      ok(await service.listAttempts(db, currentShop(request).id, request.params.webhookId, request.query)),
  });

  app.post('/:shopId/webhooks/:webhookId/deliveries/:deliveryId/resend', {
    schema: {
      tags,
      summary: 'Resend a delivery: the same event to this endpoint again',
      description: resend,
      params: schema.DeliveryParams,
      response: ownerResponses(schema.Delivery, [409]),
    },
    handler: async (request) => {
      const { webhookId, deliveryId } = request.params;
      return ok(await service.resendDelivery(db, currentShop(request).id, webhookId, deliveryId, clock.now()));
    },
  });

  app.post('/:shopId/webhooks/:webhookId/test', {
    schema: {
      tags,
      summary: 'Send a ping event now and answer how the endpoint replied',
      params: schema.WebhookParams,
      response: ownerResponses(schema.PingResult),
    },
    handler: async (request) =>
      ok(
        await service.ping(
          { db, secrets: app.secrets, timeoutMs, allowPrivate, clock },
          currentShop(request).id,
          request.params.webhookId,
        ),
      ),
  });
};

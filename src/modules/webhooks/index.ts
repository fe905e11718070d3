// The webhooks module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export type { EventType } from './event-types.js';
export { webhookOwnerRoutes } from './owner.routes.js';
export type { WebhookWorker, WebhookWorkerOptions } from './service.js';
export {
  deliveryBacklog,
  queueDeliveries,
  resealWebhookSecret,
  sealedWebhookSecrets,
  startWebhookWorker,
  subscribedEndpoints,
  webhookDeliveryJob,
} from './service.js';

// The webhooks module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export type { EventType } from './event-types.js';
export { webhookOwnerRoutes } from './owner.routes.js';
export { publishEvent } from './publish.js';
export type { WebhookWorker, WebhookWorkerOptions } from './service.js';
export {
  deliveryBacklog,
  resealWebhookSecret,
  sealedWebhookSecrets,
  startWebhookWorker,
  webhookDeliveryJob,
} from './service.js';
export { subscribe as subscribeWebhooks } from './subscribers.js';

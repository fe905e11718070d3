// The webhooks module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export type { EventType } from './event-types.js';
export { webhookOwnerRoutes } from './owner.routes.js';
export { deliveryBacklog, listSealedWebhookSecrets, replaceSealedWebhookSecret } from './repository.js';
export type { WebhookWorker, WebhookWorkerOptions } from './service.js';
export { queueDeliveries, startWebhookWorker, subscribedEndpoints, webhookDeliveryJob } from './service.js';

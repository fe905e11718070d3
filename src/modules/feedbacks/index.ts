// The feedbacks module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.

export { appealsCommand } from './appeals-command.js';
export { feedbackOwnerRoutes } from './owner.routes.js';
export { feedbackPublicRoutes } from './public.routes.js';
export { backdateFeedback, feedbackOfInvoice, feedbacksOfInvoices, postFeedback } from './service.js';

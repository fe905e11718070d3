// The faqs module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export type { FaqRow } from './faqs.table.js';
export { faqOwnerRoutes } from './owner.routes.js';

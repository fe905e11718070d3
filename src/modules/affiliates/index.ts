// The affiliates module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export { affiliateOwnerRoutes } from './owner.routes.js';

// The dashboards module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { dashboardOwnerRoutes } from './owner.routes.js';

// The categories module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export type { CategoryRow } from './categories.table.js';
export { categoryOwnerRoutes } from './owner.routes.js';
export { categoryListings } from './service.js';

// The groups module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export type { GroupRow } from './groups.table.js';
export { groupOwnerRoutes } from './owner.routes.js';
export { groupMembers } from './service.js';
export { subscribe as subscribeGroups } from './subscribers.js';

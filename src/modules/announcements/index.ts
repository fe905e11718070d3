// The announcements module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export type { AnnouncementRow } from './announcements.table.js';
export { announcementOwnerRoutes } from './owner.routes.js';

// The analytics module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export { analyticsOwnerRoutes } from './owner.routes.js';
export type { VisitRecorder } from './visits.js';
export { recordVisit, startVisitRecorder } from './visits.js';

// The design module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { designOwnerRoutes } from './owner.routes.js';
export { Design, DesignFlags, socialPlatforms } from './schema.js';
export { getDesign } from './service.js';

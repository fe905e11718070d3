// The listings module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { listingOwnerRoutes } from './owner.routes.js';
export { groupTypes, listingTypes } from './schema.js';
export { checkListingIds, claimListingPath, listingsInOrder, syncListings } from './service.js';

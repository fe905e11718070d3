// The storefront module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export type { CachedPage } from './page-cache.js';
export { invalidateAfterWrite, PageCache, registerPageCache, shopContentChanged } from './page-cache.js';
export { storefrontPublicRoutes } from './public.routes.js';
export { addFeedbackToTotals, countFirstPurchase } from './repository.js';

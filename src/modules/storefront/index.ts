// The storefront module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.

export { cacheControlFor, conditionalGet, etagOf, matchesIfNoneMatch } from './http-cache.js';
export type { CachedPage } from './page-cache.js';
export { invalidateAfterWrite, PageCache, registerPageCache } from './page-cache.js';
export { storefrontPublicRoutes } from './public.routes.js';
export { rebuildStorefrontTotals } from './rebuild.js';
export type { PublicListing } from './schema.js';
export {
  announcementPage,
  cartPage,
  checkoutPage,
  faqsPage,
  feedbacksPage,
  listingPage,
  listingsPage,
  mainPage,
  shopDetails,
  sitemapEntries,
} from './service.js';
export { keyOpens, UnlockedKeys } from './storefront-lock.js';
export { subscribe as subscribeStorefront } from './subscribers.js';

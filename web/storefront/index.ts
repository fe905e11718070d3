// The web storefront's door: what the composition root (src/app.ts) uses of it.
export { storefrontRewrite } from './addressing.js';
export { storefrontWebRoutes } from './routes.js';

// The protection module's door: a shop's settings against abuse of its public flows (stock holds,
// velocity limits, mail budgets, disputes). The modules that enforce them read them
// here; the owner changes them through PUT settings/protection.
export { protectionOwnerRoutes } from './owner.routes.js';
export { DEFAULT_PROTECTION, ShopProtection } from './schema.js';
export { protectionOf } from './service.js';

// The accounts module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export { authenticateOwner } from './owner-auth.js';
export type { Principal, Scope } from './service.js';
export { createApiKey, ensureFirstOwner, listApiKeys, revokeApiKey, scopes } from './service.js';

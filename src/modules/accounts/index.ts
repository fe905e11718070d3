// The accounts module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export { ensureFirstOwner, FIRST_OWNER_EMAIL } from './first-owner.js';
export { authenticateOwner, registerOwnerCookies } from './owner-auth.js';
export type { Principal, Scope } from './service.js';
export { createApiKey, listApiKeys, revokeApiKey, scopes } from './service.js';
export { ownerSessionPublicRoutes, ownerSessionRoutes } from './session.routes.js';
export {
  createPasswordSetupToken,
  PASSWORD_SETUP_HOURS,
  passwordSetupLink,
  SESSION_IDLE_HOURS,
  SESSION_MAX_DAYS,
  setPassword,
  setupTokenForEmail,
  sweepOwnerSessions,
} from './sessions.service.js';
export type { OwnerSignInLimits } from './sign-in-limits.js';

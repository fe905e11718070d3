// The customer-sessions module's door: what other modules, the web storefront and the composition root use of it.
export { identifyCustomer, sessionTokenOf, signedInCustomer } from './customer-auth.js';
export { customerSessionPublicRoutes } from './public.routes.js';
export {
  CODE_MINUTES,
  type CustomerSession,
  customerAccount,
  endSession,
  findSession,
  MAX_CODE_ATTEMPTS,
  openTrustedSession,
  SESSION_DAYS,
  sendSignInCode,
  startSession,
  sweepCustomerSessions,
} from './service.js';
export {
  CODES_PER_CLIENT_PER_HOUR,
  CODES_PER_EMAIL_PER_HOUR,
  createSignInLimits,
  type SignInLimits,
} from './sign-in-limits.js';

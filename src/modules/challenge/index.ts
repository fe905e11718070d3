// The challenge module's door: the self-hosted proof-of-work challenge (ALTCHA) a shop may ask
// of a client before a checkout, ticket or sign-in code, and the velocity that decides it.
export { challengePublicRoutes } from './public.routes.js';
export { AltchaHeaders } from './schema.js';
export { CHALLENGE_ALGORITHM, type ChallengeGate, createChallengeGate, sweepChallenges } from './service.js';

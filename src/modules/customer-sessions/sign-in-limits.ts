import type { Redis } from 'ioredis';
import { clientOf, consumeOrRefuse, createCounter } from '../../http/auth-failures.js';

/** Sign-in codes one e-mail address may be sent per shop and hour. */
export const CODES_PER_EMAIL_PER_HOUR = 5;
/** Sign-in codes one client (an IPv4 address, an IPv6 /64) may ask for per hour, over all shops and addresses. */
export const CODES_PER_CLIENT_PER_HOUR = 20;

/**
 * How often sign-in codes may be asked for: a code is a mail to someone's inbox, so neither an
 * address (mail bombing, guessing: each code has 5 tries) nor a client (spraying many addresses)
 * gets more than a few an hour. The API and the storefront's form count against the same
 * budgets. rate-limiter-flexible, as for failed authentications (src/http/auth-failures.ts):
 * counters in Redis when `REDIS_URL` is set, so instances share them; otherwise, and while Redis
 * is down, in this process.
 */
export interface SignInLimits {
  /** Counts one code for the client and the address; a 429 (with Retry-After) past either budget. */
  take(shopId: number, email: string, ip: string): Promise<void>;
}

export function createSignInLimits(options: { redis: Redis | null; keyPrefix: string }): SignInLimits {
  const counter = (points: number, name: string) => createCounter(options, { points, seconds: 3600, name });
  const perClient = counter(CODES_PER_CLIENT_PER_HOUR, 'signin-client');
  const perEmail = counter(CODES_PER_EMAIL_PER_HOUR, 'signin-email');
  return {
    async take(shopId, email, ip) {
      await consumeOrRefuse(perClient, clientOf(ip), 'Too many sign-in codes were asked for from this address');
      await consumeOrRefuse(perEmail, `${shopId}:${email}`, 'Too many sign-in codes were sent to this e-mail address');
    },
  };
}

import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { clientOf, consumeOrRefuse, createCounter } from '../../http/auth-failures.js';

/** Failed sign-ins one e-mail address may have per window (15 minutes) from one client. */
export const FAILED_SIGN_INS_PER_EMAIL = 10;
/**
 * Failed sign-ins one e-mail address may have per window over every client: the backstop against
 * guessing spread over many addresses. Far above the per-client budget, so that a guesser who
 * knows an owner's e-mail cannot, from one address, lock the owner out. A browser the account has
 * signed in from before (its device cookie, owner-auth.ts) is not held to it: guesses from ten
 * addresses used it up and locked the real owner out of the admin (issue 36, L10).
 */
export const FAILED_SIGN_INS_PER_EMAIL_ALL_CLIENTS = 100;
/** Failed sign-ins one client (an IPv4 address, an IPv6 /64) may have per window, over every address. */
export const FAILED_SIGN_INS_PER_CLIENT = 30;
/** The window of the counters, in seconds. */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/**
 * How often the owner's password may be tried (`POST /self/session`, and `PUT /self/password`'s
 * current password). Each attempt takes a point from three budgets BEFORE the password is
 * checked: the client's, the e-mail's from that client, and the e-mail's over all clients; so
 * parallel guesses get no more tries than the budgets have, and past any of them the attempt is a
 * 429 and the password is not even compared. A success gives the client its point back and
 * clears the e-mail's counters: only failures count. rate-limiter-flexible, as for the buyers'
 * codes (customer-sessions/sign-in-limits.ts): counters in Redis when `REDIS_URL` is set, so
 * instances share them; otherwise, and while Redis is down, in this process.
 */
export interface OwnerSignInLimits {
  /**
   * Counts an attempt; a 429 (with Retry-After) past any budget. An attempt from a known device
   * (a browser that signed in to this address before) is not counted in the address's budget
   * over all clients, only in its client's budgets.
   */
  take(email: string, ip: string, knownDevice?: boolean): Promise<void>;
  /** The attempt succeeded: it does not count (`knownDevice` as it was taken). */
  succeeded(email: string, ip: string, knownDevice?: boolean): Promise<void>;
}

export function createOwnerSignInLimits(options: { redis: Redis | null; keyPrefix: string }): OwnerSignInLimits {
  const counter = (points: number, name: string) =>
    createCounter(options, { points, seconds: SIGN_IN_WINDOW_SECONDS, name });
  const perClient = counter(FAILED_SIGN_INS_PER_CLIENT, 'owner-signin-client');
  const perEmailAndClient = counter(FAILED_SIGN_INS_PER_EMAIL, 'owner-signin-email-client');
  const perEmail = counter(FAILED_SIGN_INS_PER_EMAIL_ALL_CLIENTS, 'owner-signin-email');
  return {
    async take(email, ip, knownDevice = false) {
      const client = clientOf(ip);
      const taken: [RateLimiterAbstract, string][] = [];
      const budgets: [RateLimiterAbstract, string, string][] = [
        [perClient, client, 'Too many failed sign-ins from this address'],
        [perEmailAndClient, `${email} ${client}`, 'Too many failed sign-ins for this e-mail address from here'],
      ];
      if (!knownDevice) budgets.push([perEmail, email, 'Too many failed sign-ins for this e-mail address']);
      try {
        for (const [bucket, key, message] of budgets) {
          await consumeOrRefuse(bucket, key, message);
          taken.push([bucket, key]);
        }
      } catch (err) {
        // Refused before any password was checked: the budgets already taken from get their point back.
        for (const [bucket, key] of taken) await bucket.reward(key, 1);
        throw err;
      }
    },
    async succeeded(email, ip, knownDevice = false) {
      const client = clientOf(ip);
      await perClient.reward(client, 1);
      await perEmailAndClient.delete(`${email} ${client}`);
      if (!knownDevice) await perEmail.reward(email, 1);
    },
  };
}

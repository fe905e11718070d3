import { createHmac, timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyFromHeader, SESSION_COOKIE, sessionTokenFromCookies } from '../../http/auth.js';
import { AppError, ForbiddenError, UnauthorizedError } from '../../http/errors.js';
import { authenticateApiKey } from './service.js';
import { authenticateSession } from './sessions.service.js';
import { createOwnerSignInLimits } from './sign-in-limits.js';

const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The cookie holding the CSRF secret of the web admin (@fastify/csrf-protection's cookie mode). */
export const CSRF_COOKIE = 'shopd_admin_csrf';
/** The header a session's write sends its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * Cookies and CSRF protection for the `/self` scope, the owner's web admin's (the storefront
 * registers its own in its scope; the two never meet). CSRF is the double-submit pattern of
 * @fastify/csrf-protection: a random secret in an httpOnly cookie (SameSite=Strict, path
 * `/self`), and a token made from it that the admin reads from `POST`/`GET /self/session` and
 * sends back as `X-CSRF-Token`. Each token is bound to its session (`userInfo`) and signed with a
 * key derived from the server's secret (`hmacKey`), so neither a secret cookie planted from a
 * sibling host nor a token of another session passes.
 */
export async function registerOwnerCookies(scope: FastifyInstance): Promise<void> {
  // One set of password-attempt counters for sign-in and password change (sign-in-limits.ts).
  scope.decorate(
    'ownerSignInLimits',
    createOwnerSignInLimits({ redis: scope.redis, keyPrefix: `${scope.config.redisKeyPrefix}rl:` }),
  );
  await scope.register(fastifyCookie);
  await scope.register(fastifyCsrf, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/self', sameSite: 'strict', httpOnly: true },
    getToken: (request) => {
      const token = request.headers[CSRF_HEADER];
      return typeof token === 'string' ? token : undefined;
    },
    getUserInfo: (request) => sessionBinding(request.principal?.sessionId ?? null),
    csrfOpts: { userInfo: true, hmacKey: scope.secrets.deriveKey('owner-session-csrf') },
    logLevel: 'debug',
  });
}

/** What a CSRF token is bound to: its session. An empty binding matches no token. */
const sessionBinding = (sessionId: number | null) => (sessionId === null ? '' : `session:${sessionId}`);

/**
 * Cookies are `Secure` when the request came over https, and also whenever the server's public
 * address is https: behind a TLS proxy without `TRUST_PROXY`, the request itself looks like http.
 */
const secure = (request: FastifyRequest) =>
  request.protocol === 'https' || request.server.config.publicUrl.startsWith('https:');

const cookieSecurity = (request: FastifyRequest) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: secure(request),
  // Only the owner API reads them: no storefront or public request carries them.
  path: '/self',
});

/** The cookie that marks a browser an account has signed in from (see isKnownDevice). */
export const DEVICE_COOKIE = 'shopd_device';
/** How long a browser stays known after its last sign-in. */
const DEVICE_DAYS = 90;

const deviceMac = (request: FastifyRequest, email: string, issuedAt: string) =>
  createHmac('sha256', request.server.secrets.deriveKey('owner-device'))
    .update(`${email}\n${issuedAt}`)
    .digest('base64url');

/**
 * Whether this browser signed in to `email` within DEVICE_DAYS: its `shopd_device` cookie (set at
 * each sign-in, httpOnly, path `/self/session`) holds the time of that sign-in and an HMAC of it
 * and the address, under a key derived from the server's secret. Its attempts are not held to
 * the address's budget over all clients (sign-in-limits.ts), so guesses spread over many
 * addresses cannot lock the owner out of the browser they use (OWASP's device cookies).
 */
export function isKnownDevice(request: FastifyRequest, email: string): boolean {
  const value = request.cookies?.[DEVICE_COOKIE];
  const [issuedAt, mac] = typeof value === 'string' ? value.split('.') : [];
  if (!issuedAt || !mac || !/^\d{1,15}$/.test(issuedAt)) return false;
  const age = request.server.ctx.clock.now() - Number(issuedAt);
  if (age < 0 || age > DEVICE_DAYS * 86_400_000) return false;
  const expected = Buffer.from(deviceMac(request, email.trim().toLowerCase(), issuedAt));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Marks this browser as one `email` signed in from (isKnownDevice), for DEVICE_DAYS. */
export function setDeviceCookie(request: FastifyRequest, reply: FastifyReply, email: string): void {
  const issuedAt = String(request.server.ctx.clock.now());
  void reply.setCookie(DEVICE_COOKIE, `${issuedAt}.${deviceMac(request, email, issuedAt)}`, {
    ...cookieSecurity(request),
    path: '/self/session',
    maxAge: DEVICE_DAYS * 86_400,
  });
}

/** Sets the session cookie: a browser session cookie, sent to this origin's owner API only. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  void reply.setCookie(SESSION_COOKIE, token, cookieSecurity(request));
}

/** Clears the session cookie and the CSRF secret. */
export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, cookieSecurity(request));
  void reply.clearCookie(CSRF_COOKIE, cookieSecurity(request));
}

/** A CSRF token for the session; sets the secret cookie when the browser has none yet. */
export function csrfTokenFor(request: FastifyRequest, reply: FastifyReply, sessionId: number): string {
  return reply.generateCsrf({ userInfo: sessionBinding(sessionId), secure: secure(request) });
}

/**
 * onRequest hook of the owner scope. With an `Authorization` header, the API key: 401 without a
 * valid key, 429 for an unknown key from a client that presented too many of them. Without one,
 * the `shopd_session` cookie of the web admin: 401 (and the cookie cleared) when it opens no live
 * session, and on a write (not GET, HEAD, OPTIONS) 403 without the session's CSRF token. Then 403
 * when the caller lacks the call's scope. A valid key is never refused for what others sent from
 * its address (behind a proxy, or one office's NAT, one guesser would otherwise lock every owner
 * out): a key is 256 random bits, so the limit is there to stop the guessing's load and noise,
 * not a guess that could succeed.
 */
export async function authenticateOwner(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const session =
    request.headers.authorization === undefined ? sessionTokenFromCookies(request.headers.cookie) : undefined;
  if (session !== undefined) return authenticateBySession(request, reply, session);
  const key = apiKeyFromHeader(request.headers.authorization);
  const principal = key ? await authenticateApiKey(request.server.ctx, key) : undefined;
  if (!principal) {
    // A missing key is a client that has not configured one; an unknown key may be a guess.
    if (key) await countUnknownCredential(request, reply, 'API keys');
    throw new UnauthorizedError();
  }
  const needed = readOnlyMethods.has(request.method) ? 'read' : 'write';
  if (!principal.scopes.has(needed)) throw new ForbiddenError(`This API key lacks the "${needed}" scope.`);
  request.principal = principal;
  return undefined;
}

/**
 * An unknown key or session token may be a guess: counted per client, and past the limit a 429
 * before anything is looked up (src/http/auth-failures.ts). Each made-up credential would
 * otherwise also start a rate-limit counter of its own.
 */
async function countUnknownCredential(request: FastifyRequest, reply: FastifyReply, what: string): Promise<void> {
  const failures = request.server.authFailures;
  if (!failures) return;
  const blockedFor = await failures.blockedFor(request.ip);
  if (blockedFor !== null) {
    void reply.headers({
      'retry-after': String(blockedFor),
      'ratelimit-limit': String(failures.max),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(blockedFor),
    });
    throw new AppError(
      429,
      'rate_limited',
      `Too many requests with unknown ${what} from this address; retry in ${blockedFor} s.`,
    );
  }
  await failures.recordFailure(request.ip);
}

async function authenticateBySession(request: FastifyRequest, reply: FastifyReply, token: string): Promise<unknown> {
  const principal = await authenticateSession(request.server.ctx, token);
  if (!principal) {
    await countUnknownCredential(request, reply, 'sessions');
    clearSessionCookies(request, reply);
    throw new UnauthorizedError('This session has ended or is unknown; sign in again.');
  }
  request.principal = principal;
  if (readOnlyMethods.has(request.method)) return undefined;
  // The library answers a missing or wrong token itself: 403 forbidden, through the error handler.
  let passed = false;
  request.server.csrfProtection(request, reply, () => {
    passed = true;
  });
  if (passed) return undefined;
  request.principal = null;
  return reply;
}

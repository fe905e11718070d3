import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentPrincipal, sessionTokenFromCookies } from '../../http/auth.js';
import { ok, ownerResponses, publicResponses, toIso } from '../../schemas/common.js';
import { clearSessionCookies, csrfTokenFor, isKnownDevice, setDeviceCookie, setSessionCookie } from './owner-auth.js';
import * as schema from './schema.js';
import { accountKeys, createAccountKey, revokeAccountKey } from './service.js';
import {
  changePassword,
  describeCaller,
  endSessionOfToken,
  signIn,
  signOut,
  usePasswordSetupToken,
} from './sessions.service.js';

const tags = ['Account'];
const cookie =
  "Sets `shopd_session` (HttpOnly, SameSite=Strict, Path=/self, Secure over https or when the server's PUBLIC_URL is " +
  'https; no expiry date: it ends with the browser session or the server-side session, whichever comes first) and the ' +
  'CSRF secret cookie `shopd_admin_csrf` (the same flags). A session the browser held before ends. Sessions live ' +
  "only on the operator's hosts (PUBLIC_URL's, `ADMIN_HOSTS`, loopback names): on any other host (a shop's subdomain " +
  'or custom domain) sign-in, sign-out, the password link and every call made with the cookie answer 404 and no ' +
  'session is created or accepted there; calls with an API key work on any host.';

/**
 * The web admin's sign-in and password links: outside the authenticated owner scope (no key or
 * session is needed), limited per client IP like every public route.
 */
export const ownerSessionPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.post('/session', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Sign in to the web admin with e-mail and password',
      description:
        `Opens a session of the account. ${cookie} The answer carries the CSRF token every write made with the cookie ` +
        'must send as `X-CSRF-Token`. An unknown e-mail, an account without a password and a wrong password are one and ' +
        'the same 401 (`E-mail or password is wrong.`). Attempts are limited before the password is checked, per 15 minutes: ' +
        '10 failed ones per e-mail address from one client (an IPv4 address, an IPv6 /64), 100 per e-mail address over ' +
        'all clients, and 30 per client over all addresses; past any, 429 with `Retry-After`, whatever the password. ' +
        'A guesser from one client therefore cannot lock the owner out. A success clears its own count and sets ' +
        '`shopd_device` (httpOnly, path `/self/session`, 90 days): a browser that carries it for the address is not held to ' +
        "the address's budget over all clients, so guesses from many clients cannot lock the owner out of their own browser. " +
        'Answered `Cache-Control: no-store`.',
      security: [],
      body: schema.SignInBody,
      response: publicResponses(schema.SignedIn, [401]),
    },
    handler: async (request, reply) => {
      const knownDevice = isKnownDevice(request, request.body.email);
      const session = await signIn(ctx, app.ownerSignInLimits, { ...request.body, ip: request.ip, knownDevice });
      setDeviceCookie(request, reply, session.email);
      // A session this browser held until now (another account's, or an older one) ends here.
      const replaced = sessionTokenFromCookies(request.headers.cookie);
      if (replaced !== undefined) await endSessionOfToken(ctx, replaced);
      setSessionCookie(request, reply, session.token);
      void reply.header('cache-control', 'no-store');
      return ok({
        accountId: session.accountId,
        email: session.email,
        csrfToken: csrfTokenFor(request, reply, session.sessionId),
        expiresAt: toIso(session.expiresAt),
      });
    },
  });

  app.post('/password-setup', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Set the password with a one-time link',
      description:
        'Sets the password of the account the link was made for (`shopd users setup-link`, or the first start of the ' +
        'server) and spends the link: it works once, within 24 hours, and only the newest link of an account works. ' +
        'Unknown, used or expired: 404, nothing set. A password that breaks the rules is a 400 and leaves the link ' +
        'usable. Every session of the account ends; sign in afterwards with `POST /self/session`.',
      security: [],
      body: schema.PasswordSetupBody,
      response: publicResponses(schema.PasswordSet),
    },
    handler: async (request) => ok(await usePasswordSetupToken(ctx, request.body.token, request.body.password)),
  });
};

/** The caller's session, password and API keys: inside the authenticated owner scope. */
export const ownerSessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/session', {
    schema: {
      tags,
      summary: 'The current session, with a fresh CSRF token',
      description:
        'With the session cookie: the account, a fresh CSRF token and when the session ends (the web admin calls this on ' +
        'load). No session cookie or one that opens nothing (signed out, expired): 401, and the cookie is cleared. With an ' +
        'API key: the account, `csrfToken` and `expiresAt` null (a key needs no CSRF token). Answered `Cache-Control: no-store`.',
      response: ownerResponses(schema.CurrentSession),
    },
    handler: async (request, reply) => {
      const principal = currentPrincipal(request);
      const caller = await describeCaller(ctx, principal);
      void reply.header('cache-control', 'no-store');
      const csrfToken = principal.sessionId === null ? null : csrfTokenFor(request, reply, principal.sessionId);
      return ok({ ...caller, csrfToken });
    },
  });

  app.delete('/session', {
    schema: {
      tags,
      summary: 'Sign out of the web admin',
      description:
        'Ends the session of the cookie (it opens nothing afterwards) and clears `shopd_session` and `shopd_admin_csrf`. ' +
        'Needs the CSRF token, like every write with the cookie. With an API key there is no session to end: 200, ' +
        'nothing changes (revoke a key with `DELETE /self/keys/{keyId}`).',
      response: ownerResponses(Type.Null()),
    },
    handler: async (request, reply) => {
      await signOut(ctx, currentPrincipal(request));
      clearSessionCookies(request, reply);
      return ok(null);
    },
  });

  app.put('/password', {
    schema: {
      tags,
      summary: "Change the account's password",
      description:
        'Needs the current password (wrong, or none set yet: 400 on `currentPassword`; set a first password with a link ' +
        "from `shopd users setup-link`). Every other session of the account ends; the caller's own goes on. API keys " +
        'keep working unless `revokeApiKeys` is true, which revokes them all in the same transaction; the answer says ' +
        'how many were revoked and how many still work.',
      body: schema.PasswordChangeBody,
      response: ownerResponses(schema.PasswordChanged),
    },
    handler: async (request) =>
      ok(
        await changePassword(ctx, app.ownerSignInLimits, currentPrincipal(request), {
          ...request.body,
          ip: request.ip,
        }),
      ),
  });

  app.get('/keys', {
    schema: {
      tags,
      summary: "The account's API keys",
      description: "Every key of the caller's account, revoked ones too, newest first; never the keys themselves.",
      response: ownerResponses(schema.ApiKeyList),
    },
    handler: async (request) => ok({ items: await accountKeys(ctx, currentPrincipal(request)) }),
  });

  app.post('/keys', {
    schema: {
      tags,
      summary: 'Create an API key',
      description:
        "A new key of the caller's account, answered once with the key itself (only its hash is kept). It gets the " +
        '`scopes` asked for, or every scope the caller holds; an API key cannot grant a scope it lacks (403). An account ' +
        'holds at most 25 active keys (the owner rate limit counts per key): past that, 409 until one is revoked.',
      body: schema.NewApiKeyBody,
      response: ownerResponses(schema.CreatedApiKey, [409]),
    },
    handler: async (request) => ok(await createAccountKey(ctx, currentPrincipal(request), request.body)),
  });

  app.delete('/keys/:keyId', {
    schema: {
      tags,
      summary: 'Revoke an API key',
      description:
        "Revokes a key of the caller's account at once (a key may revoke itself). Another account's key, an unknown or an " +
        'already revoked one: 404.',
      params: schema.KeyParams,
      response: ownerResponses(schema.ApiKey),
    },
    handler: async (request) => ok(await revokeAccountKey(ctx, currentPrincipal(request), request.params.keyId)),
  });
};

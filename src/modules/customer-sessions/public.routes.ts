import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ForbiddenError } from '../../http/errors.js';
import { acceptedLocale } from '../../i18n/negotiate.js';
import { ok, publicResponses } from '../../schemas/common.js';
import { AltchaHeaders } from '../challenge/index.js';
import { PublicShopParams, requireShop, type ShopRow } from '../shops/index.js';
import { keyOpens, UnlockedKeys } from '../storefront/index.js';
import { signedInCustomer } from './customer-auth.js';
import * as schema from './schema.js';
import { customerAccount, endSession, sendSignInCode, startSession } from './service.js';

const tags = ['Customer area'];
const session = [{ customerSession: [] }];
const locked =
  'A password-protected shop needs `key` (the storefront password; missing or wrong: 403 shop_locked); an unknown shop is a 404.';

export const customerSessionPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const unlocked = new UnlockedKeys();

  /** The shop in the path, opened with its storefront password when it has one. */
  async function open(shopId: number, key: string | null | undefined, ip: string): Promise<ShopRow> {
    const shop = await requireShop(ctx.db, shopId);
    if (!(await keyOpens(shop.password_hash, key ?? undefined, shop.id, unlocked, { limits: app.passwordGuesses, ip })))
      throw new ForbiddenError('This shop is protected by a password.', 'shop_locked');
    return shop;
  }

  app.post('/shops/:shopId/customer/sign-in', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Mail a one-time sign-in code to a buyer',
      description:
        'Mails a 6-digit code (random, valid 15 minutes, 5 tries) to `email`, written to the outbox with the code itself in no ' +
        'log, subject or URL. The answer is the same 200 whether or not the shop has a customer with that address (nothing ' +
        'tells who buys here); an address that never ordered signs in to an empty account. At most 5 codes per address and ' +
        'shop, and 20 per client IP (an IPv6 /64), per hour: past either, 429 with `Retry-After` and nothing sent. Asking again ' +
        'sends a new code; every unused code of the address works until one of them is used. When the shop asks this ' +
        'client for a proof-of-work challenge (`settings/protection`), a request without a solution in `X-Altcha` is a ' +
        '428 `challenge_required` and nothing is sent; see `GET /v2/public/shops/{shopId}/challenge`. ' +
        locked,
      params: PublicShopParams,
      headers: AltchaHeaders,
      body: schema.SignInBody,
      response: publicResponses(schema.SignInResult, [403, 428]),
    },
    handler: async (request) => {
      await app.challenges.admit(request.params.shopId, request.ip, request.headers['x-altcha']);
      const shop = await open(request.params.shopId, request.body.key, request.ip);
      return ok(
        await sendSignInCode(ctx, app.signInLimits, shop, {
          email: request.body.email,
          ip: request.ip,
          locale: acceptedLocale(request.headers['accept-language']),
        }),
      );
    },
  });

  app.post('/shops/:shopId/customer/session', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Trade a mailed sign-in code for a session token',
      description:
        'A live code of this address (unused, under 15 minutes old, fewer than 5 tries) opens a session of this shop for 30 days: ' +
        'the answer carries its token once (only a hash is kept), to send as `Authorization: Bearer <token>`. Every try counts ' +
        "against the address's live codes before the comparison (constant time): after 5 tries a code is dead. Using a code " +
        "spends the address's other unused codes. An unknown address, a wrong, expired, used or dead code are one and the same " +
        '401 `unauthorized` (`code: is wrong, expired or used up`); a code that is not 6 digits is a 400. Wrong codes count as ' +
        'failed authentications of the client IP (`RATE_LIMIT_AUTH_FAILURES_MAX` per window; past it, 429 with `Retry-After`). ' +
        locked,
      params: PublicShopParams,
      body: schema.SessionBody,
      response: publicResponses(schema.SessionResult, [401, 403]),
    },
    handler: async (request) => {
      const shop = await open(request.params.shopId, request.body.key, request.ip);
      const { email, code } = request.body;
      return ok(await startSession(ctx, shop, { email, code, ip: request.ip }, app.authFailures));
    },
  });

  app.delete('/shops/:shopId/customer/session', {
    config: { public: true, customerSession: true },
    schema: {
      tags,
      summary: 'Sign out: end the customer session',
      description:
        'Ends the session whose token is sent as `Authorization: Bearer <token>`: the token opens nothing afterwards. No live ' +
        "session of this shop (no token, unknown, expired, already signed out, another shop's): 401. Needs no storefront password.",
      security: session,
      params: PublicShopParams,
      response: publicResponses(schema.SignedOut, [401]),
    },
    handler: async (request) => {
      const customer = signedInCustomer(request);
      await endSession(ctx, customer.shopId, customer.id);
      return ok({ signedOut: true as const });
    },
  });

  app.get('/shops/:shopId/customer', {
    config: { public: true, customerSession: true },
    schema: {
      tags,
      summary: "The signed-in buyer's account: balance and orders",
      description:
        'For the session sent as `Authorization: Bearer <token>` (none, or not a live session of this shop: 401): the address, ' +
        "the store balance in the shop currency and the buyer's own invoices of this shop — never another customer's or another " +
        "shop's — newest first (id as tie-break), each in the customer's view (status, parts, totals, dates, payment instructions " +
        'while pending, the goods once completed), paged with `pageNumber`/`pageSize` or a keyset `cursor`. Answered ' +
        '`Cache-Control: private, no-store`. ' +
        locked,
      security: session,
      params: PublicShopParams,
      querystring: schema.AccountQuery,
      response: publicResponses(schema.Account, [401, 403]),
    },
    handler: async (request, reply) => {
      const customer = signedInCustomer(request);
      const shop = await open(request.params.shopId, request.query.key, request.ip);
      void reply.header('cache-control', 'private, no-store');
      return ok(await customerAccount(ctx, app.secrets, shop, customer.email, request.query));
    },
  });
};

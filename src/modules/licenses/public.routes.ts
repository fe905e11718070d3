import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok, publicResponses } from '../../schemas/common.js';
import { requireShop } from '../shops/index.js';
import { createLicenseKeyLimit } from './key-limits.js';
import * as schema from './schema.js';
import { activateLicense, deactivateLicense, validateLicense } from './service.js';
import { SignerCache, shopJwks } from './signing.js';

const tags = ['Licenses'];

const common =
  'No API key and no storefront password: the key is the credential. Keys are per shop: the same text sold by two shops is two ' +
  'licenses, and a key never answers at another shop (404). Rate-limited per client IP (the public limit) and per key of the shop ' +
  '(a tenth of it, 60 a minute by default): 429 with `Retry-After`.';

/** The calls a licensed program makes (Lemon Squeezy's license API, in shopd's envelope), and the JWKS its tokens verify against. */
export const licensePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const signer = new SignerCache(app.secrets);
  const limit = createLicenseKeyLimit({
    redis: app.redis,
    keyPrefix: `${app.config.redisKeyPrefix}rl:`,
    publicMax: app.config.rateLimit.publicMax,
    windowMs: app.config.rateLimit.windowMs,
  });

  app.post('/shops/:shopId/licenses/activate', {
    // An activation changes no public page: the page cache is kept.
    config: { public: true, keepsPages: true },
    schema: {
      tags,
      summary: 'Activate a license on an instance',
      description:
        'Activates the license on a new instance named `instanceName` and answers its `instanceId` (keep it: validate and ' +
        'deactivate take it) with a signed `token`. Exact under concurrency: the usage is taken by one conditional update, so of ' +
        'any number of simultaneous activations exactly as many as `activationLimit` allows succeed. Over the limit: 422 ' +
        '(`licenseKey: has reached its activation limit of N`); a `disabled`, `revoked` or `expired` license: 422 naming the ' +
        'status; an unknown key: 404. Each activation is a new instance, also for a name used before. Publishes ' +
        `\`license.activated\`. ${common}`,
      params: schema.LicenseCallParams,
      body: schema.ActivateBody,
      response: publicResponses(schema.Activated, [422]),
    },
    handler: async (request) => {
      await limit.take(request.params.shopId, request.body.licenseKey);
      const userAgent = request.headers['user-agent'];
      return ok(
        await activateLicense(ctx, signer, request.params.shopId, request.body, {
          ip: request.ip ?? null,
          userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null,
        }),
      );
    },
  });

  app.post('/shops/:shopId/licenses/validate', {
    config: { public: true, keepsPages: true },
    schema: {
      tags,
      summary: 'Check a license (and an instance of it)',
      description:
        '`valid` is true when the license is `active` or `inactive` and, if `instanceId` is given, that instance is activated on ' +
        'it; otherwise false, with the license as it is (its `status` says why) — also for an instance that is unknown or was ' +
        'deactivated. A `token` comes only with a valid answer. An unknown key is a 404 (as Lemon Squeezy answers it), not ' +
        `\`valid: false\`. Changes nothing. ${common}`,
      params: schema.LicenseCallParams,
      body: schema.ValidateBody,
      response: publicResponses(schema.Validated),
    },
    handler: async (request) => {
      await limit.take(request.params.shopId, request.body.licenseKey);
      return ok(await validateLicense(ctx, signer, request.params.shopId, request.body));
    },
  });

  app.post('/shops/:shopId/licenses/deactivate', {
    config: { public: true, keepsPages: true },
    schema: {
      tags,
      summary: 'Deactivate an instance',
      description:
        'Frees the instance, so the license can be activated elsewhere: `deactivated` is true for the call that freed it and ' +
        'false when it was already free — of simultaneous calls for one instance exactly one frees it and the usage goes down ' +
        'once. Works in any status (a disabled or expired license can still be moved). An unknown key or an instance not of ' +
        `this license: 404. Publishes \`license.deactivated\` (\`by: "program"\`). ${common}`,
      params: schema.LicenseCallParams,
      body: schema.DeactivateBody,
      response: publicResponses(schema.Deactivated),
    },
    handler: async (request) => {
      await limit.take(request.params.shopId, request.body.licenseKey);
      return ok(await deactivateLicense(ctx, request.params.shopId, request.body));
    },
  });

  app.get('/shops/:shopId/licenses/jwks', {
    config: { public: true },
    schema: {
      tags,
      summary: "The shop's license-token public keys (JWKS)",
      description:
        'A standard JSON Web Key Set, **not** wrapped in the envelope, so JWKS libraries read it as it is (jose ' +
        "`createRemoteJWKSet`, PyJWT's `PyJWKClient`): the shop's current Ed25519 key (made at the first need) and the keys " +
        'rotated out less than LICENSE_TOKEN_HOURS ago, whose tokens may still be valid. `Cache-Control: public, max-age=300`. ' +
        'Errors (an unknown shop: 404) are in the envelope.',
      params: schema.LicenseCallParams,
      response: { ...publicResponses(schema.Jwks), 200: schema.Jwks },
    },
    handler: async (request, reply) => {
      const shop = await requireShop(ctx.db, request.params.shopId);
      void reply.header('cache-control', 'public, max-age=300');
      return shopJwks(ctx, app.secrets, shop.id);
    },
  });
};

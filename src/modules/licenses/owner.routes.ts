import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { CursorPage, ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import * as service from './owner.service.js';
import * as schema from './schema.js';
import { rotateSigningKey, signingKeys } from './signing.js';

const tags = ['Licenses'];

const states =
  'A license is disabled and enabled again at will, and revoked for good; a revoked license takes no state change (409). ' +
  'Answers the license with its activations.';

/** The owner's view of the licences sold: list, inspect, disable, enable, extend, reset, revoke; the signing keys. */
export const licenseOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  // A licence change alters no public page: the shop's page cache is kept.
  const config = { keepsPages: true };

  app.get('/:shopId/licenses', {
    schema: {
      tags,
      summary: 'List licenses',
      description:
        'Newest first (createdAt, then id), keyset `cursor` paging. `status` keeps one status as it is now (an `expired` ' +
        'license is one whose end has passed, whatever it was), `productId` one product, `email` one buyer; `searchString` ' +
        'matches the key and the e-mail.',
      params: ShopParams,
      querystring: schema.LicenseListQuery,
      response: ownerResponses(CursorPage(schema.OwnerLicense)),
    },
    handler: async (request) => ok(await service.listLicenses(ctx, currentShop(request).id, request.query)),
  });

  app.get('/:shopId/licenses/:licenseId', {
    schema: {
      tags,
      summary: 'Get one license with its activations',
      description: 'Every instance it was ever activated on, newest first; `deactivatedAt` is null for the live ones.',
      params: schema.LicenseParams,
      response: ownerResponses(schema.OwnerLicenseDetail),
    },
    handler: async (request) => ok(await service.getLicense(ctx, currentShop(request).id, request.params.licenseId)),
  });

  app.post('/:shopId/licenses/:licenseId/disable', {
    config,
    schema: {
      tags,
      summary: 'Disable a license',
      description: `Its status becomes \`disabled\`: it validates as \`valid: false\` and cannot be activated until enabled again; its instances stay. ${states}`,
      params: schema.LicenseParams,
      response: ownerResponses(schema.OwnerLicenseDetail, [409]),
    },
    handler: async (request) =>
      ok(await service.changeLicenseState(ctx, currentShop(request).id, request.params.licenseId, 'disable')),
  });

  app.post('/:shopId/licenses/:licenseId/enable', {
    config,
    schema: {
      tags,
      summary: 'Enable a disabled license',
      description: `Its status is derived again (active, inactive or expired). ${states}`,
      params: schema.LicenseParams,
      response: ownerResponses(schema.OwnerLicenseDetail, [409]),
    },
    handler: async (request) =>
      ok(await service.changeLicenseState(ctx, currentShop(request).id, request.params.licenseId, 'enable')),
  });

  app.post('/:shopId/licenses/:licenseId/extend', {
    config,
    schema: {
      tags,
      summary: "Move a license's end",
      description:
        'Give exactly one of `expiresAt` (the new end; null: never expires) and `addDays` (days past the current end, or past ' +
        'now when that has passed; a license that never expires has no end to move: 400). An expired license extended into ' +
        'the future is usable again. A revoked license: 409. Tokens already issued keep their own `exp`.',
      params: schema.LicenseParams,
      body: schema.ExtendBody,
      response: ownerResponses(schema.OwnerLicenseDetail, [409]),
    },
    handler: async (request) =>
      ok(await service.extendLicense(ctx, currentShop(request).id, request.params.licenseId, request.body)),
  });

  app.post('/:shopId/licenses/:licenseId/reset', {
    config,
    schema: {
      tags,
      summary: 'Deactivate every instance of a license',
      description:
        'Frees all its instances (usage back to 0), so the buyer can activate it afresh; its state stays. Each freed instance ' +
        'publishes `license.deactivated` (`by: "owner"`). Tokens already issued stay valid until their `exp`.',
      params: schema.LicenseParams,
      response: ownerResponses(schema.OwnerLicenseDetail),
    },
    handler: async (request) => ok(await service.resetLicense(ctx, currentShop(request).id, request.params.licenseId)),
  });

  app.post('/:shopId/licenses/:licenseId/revoke', {
    config,
    schema: {
      tags,
      summary: 'Revoke a license for good',
      description: `As a full refund does: it never validates or activates again. Publishes \`license.revoked\` (\`reason: "owner"\`). ${states}`,
      params: schema.LicenseParams,
      response: ownerResponses(schema.OwnerLicenseDetail, [409]),
    },
    handler: async (request) =>
      ok(await service.changeLicenseState(ctx, currentShop(request).id, request.params.licenseId, 'revoke')),
  });

  app.get('/:shopId/licenses/signing-keys', {
    schema: {
      tags,
      summary: "The shop's license-token signing keys",
      description:
        'The keys its JWKS lists: the current one (made at the first need) and those retired less than LICENSE_TOKEN_HOURS ' +
        'ago. Only the public halves are ever shown; the private ones are sealed with the server key.',
      params: ShopParams,
      response: ownerResponses(Type.Array(schema.SigningKey)),
    },
    handler: async (request) => ok(await signingKeys(ctx, currentShop(request).id)),
  });

  app.post('/:shopId/licenses/signing-keys/rotate', {
    config,
    schema: {
      tags,
      summary: 'Rotate the license-token signing key',
      description:
        'Retires the current Ed25519 key and makes a new one: new tokens carry its `kid`. The JWKS keeps the retired key ' +
        'while tokens signed with it can be valid (LICENSE_TOKEN_HOURS), so programs that fetch it keep accepting them. ' +
        'Answers the keys as the JWKS now lists them.',
      params: ShopParams,
      response: ownerResponses(Type.Array(schema.SigningKey)),
    },
    handler: async (request) => ok(await rotateSigningKey(ctx, app.secrets, currentShop(request).id)),
  });
};

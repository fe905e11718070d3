import { type Static, Type } from '@sinclair/typebox';
import {
  CursorPageQuery,
  Email,
  Id,
  NonBlankText,
  Nullable,
  OptionalNullable,
  StringEnum,
  Timestamp,
} from '../../schemas/common.js';
import { rule } from '../../schemas/rules.js';
import { PublicShopId } from '../shops/index.js';
import { licenseStatuses } from './status.js';

const LicenseStatus = StringEnum(licenseStatuses, {
  description:
    '`revoked` (ended by a refund or the owner, for good), `disabled` (paused by the owner), `expired` (its end has passed), ' +
    '`active` (activated on at least one instance), `inactive` (not activated anywhere). The first that applies wins.',
});

const LicenseKey = NonBlankText({
  maxLength: 2000,
  description: 'The license key as the buyer received it (a serial sold, or a generated key); compared exactly.',
});

export const InstanceId = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'An instance id, as `activate` answered it (a UUID).',
});

// --- public: the program's calls ---------------------------------------------------------------

export const ActivateBody = Type.Object({
  licenseKey: LicenseKey,
  instanceName: NonBlankText({
    maxLength: 200,
    description: 'A name for the machine or installation, shown to the owner and the buyer (e.g. "Office laptop").',
  }),
});
export type ActivateBody = Static<typeof ActivateBody>;

export const ValidateBody = Type.Object({
  licenseKey: LicenseKey,
  instanceId: Type.Optional({
    ...InstanceId,
    description: 'When given, the license is valid only if this instance is activated on it (not deactivated).',
  }),
});
export type ValidateBody = Static<typeof ValidateBody>;

export const DeactivateBody = Type.Object({ licenseKey: LicenseKey, instanceId: InstanceId });
export type DeactivateBody = Static<typeof DeactivateBody>;

const Token = Type.String({
  description:
    'A compact JWS (EdDSA, `kid` in its header) the program can check offline against the JWKS ' +
    "(`GET /v2/public/shops/{shopId}/licenses/jwks`): claims `iss` (this shop's public API base, by id), `sub` (the key), " +
    '`productId`, `instanceId` (when there is one), `status`, `licenseExpiresAt` (ISO or null), `iat` and `exp` ' +
    "(LICENSE_TOKEN_HOURS after issue, default 72, or the license's end when that is sooner).",
});

/** What a program is told about a licence: no e-mail, no invoice. */
export const PublicLicense = Type.Object({
  status: LicenseStatus,
  activationLimit: Nullable(
    Type.Integer({ description: 'Instances it may be activated on at once; null = unlimited.' }),
  ),
  activationUsage: Type.Integer({ description: 'Instances it is activated on now.' }),
  expiresAt: Nullable({ ...Timestamp, description: 'When it expires; null = never.' }),
  productId: Type.Integer(),
});

export const Activated = Type.Object({
  activated: Type.Literal(true),
  instanceId: { ...InstanceId, description: 'The new instance: keep it to validate and deactivate.' },
  license: PublicLicense,
  token: Token,
});

export const Validated = Type.Object({
  valid: Type.Boolean({
    description:
      'True when the license is `active` or `inactive` and, if `instanceId` was given, that instance is activated on it.',
  }),
  license: PublicLicense,
  instance: Nullable(
    Type.Object(
      { id: Type.String(), name: Type.String(), createdAt: Timestamp, deactivatedAt: Nullable(Timestamp) },
      { description: 'The instance asked about; null when none was given or it is not one of this license.' },
    ),
  ),
  token: Nullable({ ...Token, description: `Only when \`valid\` (null otherwise). ${Token.description}` }),
});

export const Deactivated = Type.Object({
  deactivated: Type.Boolean({
    description: 'True when this call deactivated the instance; false when it was already deactivated.',
  }),
});

export const Jwks = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.String({ description: '`OKP`.' }),
        crv: Type.String({ description: '`Ed25519`.' }),
        x: Type.String({ description: 'The public key, base64url.' }),
        kid: Type.String({ description: "The key's RFC 7638 thumbprint; tokens name it in their header." }),
        alg: Type.Literal('EdDSA'),
        use: Type.Literal('sig'),
      }),
      { description: 'The current key first, then retired keys whose tokens may still be valid.' },
    ),
  },
  { description: 'A JSON Web Key Set (RFC 7517), not wrapped in the envelope.' },
);

export const LicenseCallParams = Type.Object({ shopId: PublicShopId });

// --- the buyer's customer area -------------------------------------------------------------------

const Instance = Type.Object({
  id: Type.String({ description: 'The instance id.' }),
  name: Type.String(),
  createdAt: Timestamp,
});

export const CustomerLicense = Type.Object({
  id: Type.Integer(),
  licenseKey: Type.String(),
  status: LicenseStatus,
  activationLimit: Nullable(Type.Integer({ description: 'null = unlimited.' })),
  activationUsage: Type.Integer(),
  expiresAt: Nullable(Timestamp),
  productId: Type.Integer(),
  invoiceId: Type.String(),
  createdAt: Timestamp,
  instances: Type.Array(Instance, { description: 'The instances it is activated on now, newest first.' }),
});

export const CustomerLicenses = Type.Array(CustomerLicense, { description: 'Newest first.' });

export const CustomerInstanceParams = Type.Object({ shopId: PublicShopId, licenseId: Id, instanceId: InstanceId });

export const InstanceFreed = Type.Object({
  deactivated: Type.Boolean({ description: 'True when this call freed the instance; false when it was already free.' }),
  license: CustomerLicense,
});

// --- owner -----------------------------------------------------------------------------------------

const Activation = Type.Object({
  id: Type.String({ description: 'The instance id.' }),
  name: Type.String(),
  createdAt: Timestamp,
  deactivatedAt: Nullable({ ...Timestamp, description: 'null while the instance is activated.' }),
});

export const OwnerLicense = Type.Object({
  id: Type.Integer(),
  licenseKey: Type.String(),
  status: LicenseStatus,
  activationLimit: Nullable(Type.Integer({ description: 'null = unlimited.' })),
  activationUsage: Type.Integer({ description: 'Instances activated now.' }),
  expiresAt: Nullable({ ...Timestamp, description: 'null = never.' }),
  productId: Type.Integer(),
  variantId: Type.Integer(),
  invoiceId: Type.String(),
  customerId: Nullable(Type.Integer()),
  email: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const OwnerLicenseDetail = Type.Composite([
  OwnerLicense,
  Type.Object({
    activations: Type.Array(Activation, {
      description: 'Every instance it was activated on, newest first, deactivated ones included.',
    }),
  }),
]);

export const LicenseParams = Type.Object({ shopId: Id, licenseId: Id });

export const LicenseListQuery = Type.Composite([
  CursorPageQuery,
  Type.Object({
    status: Type.Optional(StringEnum(licenseStatuses, { description: 'Only licenses in this status.' })),
    productId: Type.Optional({ ...Id, description: 'Only licenses of this product.' }),
    email: Type.Optional(Email("Only the buyer's licenses (the address they ordered with).")),
  }),
]);
export type LicenseListQuery = Static<typeof LicenseListQuery>;

export const ExtendBody = Type.Object({
  expiresAt: OptionalNullable({
    ...Timestamp,
    description: 'The new end; null: the license never expires. Not together with addDays.',
  }),
  addDays: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 36_500,
      description:
        "Days added to the license's end, counted from now when that end has passed. Not together with expiresAt.",
      ...rule(
        'Exactly one of addDays and expiresAt (400 naming addDays otherwise); addDays needs a license that expires (one that never does has no end to move: set expiresAt).',
      ),
    }),
  ),
});
export type ExtendBody = Static<typeof ExtendBody>;

export const SigningKey = Type.Object({
  kid: Type.String(),
  current: Type.Boolean({ description: 'The key new tokens are signed with.' }),
  createdAt: Timestamp,
  retiredAt: Nullable(Timestamp),
});

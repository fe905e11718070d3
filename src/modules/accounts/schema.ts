import { Type } from '@sinclair/typebox';
import {
  Id,
  NonBlankText,
  Nullable,
  NullableTimestamp,
  OptionalNullable,
  StringEnum,
  Timestamp,
} from '../../schemas/common.js';
import { rule } from '../../schemas/rules.js';
import { scopes } from './service.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './sessions.service.js';

/** An account's e-mail as stored: `owner@localhost`, the first owner's, has no dot in its domain. */
const AccountEmail = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  description: "The account's e-mail address, in any case (`owner@localhost` for the first owner).",
  errorMessage: { pattern: 'must be an e-mail address' },
});

/** A password as typed, to compare: any length a password can have, the rules are not checked here. */
const GivenPassword = (description: string, options: object = {}) =>
  Type.String({ minLength: 1, maxLength: 1024, description, ...options });

const Time = (description: string) =>
  Type.String({ format: 'date-time', description: `ISO 8601 UTC timestamp. ${description}` });

const NewPassword = (description: string) =>
  Type.String({
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    description: `${description} ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters; stored only as a scrypt hash.`,
    ...rule(
      `The length is counted after Unicode NFKC normalisation (the form the password is hashed in): a text that has ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters only before it is refused.`,
    ),
  });

export const SignInBody = Type.Object({
  email: AccountEmail,
  password: GivenPassword('The password of the account.'),
});

const csrfToken =
  'The CSRF token of this session: send it as `X-CSRF-Token` on every write made with the session cookie.';
const sessionExpiry =
  'When the session ends unless used again: 12 hours after its last use (noted at most every 5 minutes), at the latest 7 days after the sign-in.';

export const SignedIn = Type.Object({
  accountId: Type.Integer(),
  email: Type.String({ description: "The account's e-mail, lower-case." }),
  csrfToken: Type.String({ description: csrfToken }),
  expiresAt: Time(sessionExpiry),
});

export const CurrentSession = Type.Object({
  accountId: Type.Integer(),
  email: Type.String({ description: "The account's e-mail, lower-case." }),
  csrfToken: Nullable(Type.String({ description: `${csrfToken} A fresh one on every call; null for an API key.` })),
  expiresAt: Nullable(Time(`${sessionExpiry} Null for an API key.`)),
});

export const PasswordChangeBody = Type.Object({
  currentPassword: GivenPassword(
    'The password the account has now.',
    rule("Must be the account's current password (an account without one cannot change it here): else a 400."),
  ),
  newPassword: NewPassword('The new password.'),
  revokeApiKeys: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Also revoke every API key of the account, in the same transaction (the key this call is made with included). A ' +
        'password change alone leaves the keys working: they are separate credentials, and a script may depend on one.',
    }),
  ),
});

export const PasswordChanged = Type.Object({
  revokedApiKeys: Type.Integer({ description: 'How many API keys this change revoked (0 unless `revokeApiKeys`).' }),
  activeApiKeys: Type.Integer({ description: 'How many API keys of the account still work.' }),
});

export const PasswordSetupBody = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      'The token of the one-time link (`…/admin/setup#token=<token>`); unknown, used or expired: 404, and the password is not set.',
  }),
  password: NewPassword('The password to set.'),
});

export const PasswordSet = Type.Object({ email: Type.String({ description: "The account's e-mail, lower-case." }) });

const Scope = StringEnum(scopes);

export const ApiKey = Type.Object({
  id: Type.Integer(),
  prefix: Type.String({
    description: 'The first characters of the key, to tell keys apart; the key itself is never shown again.',
  }),
  label: Nullable(Type.String({ description: "The owner's name for the key." })),
  scopes: Type.Array(Scope),
  createdAt: Timestamp,
  revokedAt: NullableTimestamp,
  lastUsedAt: Nullable(Time('When the key last authenticated a request, to within a minute; null: never.')),
});

export const ApiKeyList = Type.Object({ items: Type.Array(ApiKey) });

export const CreatedApiKey = Type.Composite([
  ApiKey,
  Type.Object({
    key: Type.String({
      description: 'The key, shown this once (only its hash is kept): send it as `Authorization: Bearer <key>`.',
    }),
  }),
]);

export const NewApiKeyBody = Type.Object({
  label: OptionalNullable(NonBlankText({ maxLength: 100, description: 'A name for the key, to tell it apart.' })),
  scopes: OptionalNullable(
    Type.Array(Scope, {
      maxItems: 2,
      uniqueItems: true,
      description:
        'What the key may do: `read` (GET) and/or `write` (everything else). Omitted or empty: every scope the caller holds. A scope the calling key lacks: 403.',
    }),
  ),
});

export const KeyParams = Type.Object({ keyId: Id });

import { type Static, Type } from '@sinclair/typebox';
import { CursorPage, CursorPageQuery, Email, OptionalNullable, Timestamp } from '../../schemas/common.js';
import { PublicInvoice } from '../orders/index.js';

const Key = OptionalNullable(
  Type.String({
    maxLength: 128,
    description: 'The storefront password, when the shop has one (else 403 shop_locked).',
  }),
);

export const SignInBody = Type.Object({
  email: Email('Where the code is mailed; stored lower-case.'),
  key: Key,
});
export type SignInBody = Static<typeof SignInBody>;

export const SignInResult = Type.Object({
  email: Type.String({ description: 'The address, lower-case, as the session will carry it.' }),
  codeValidMinutes: Type.Integer({ description: 'How long the mailed code works.' }),
});

export const SessionBody = Type.Object({
  email: Email('The address the code was mailed to.'),
  code: Type.String({
    pattern: '^[0-9]{6}$',
    description: 'The 6-digit code from the mail.',
    errorMessage: { pattern: 'must be the 6 digits from the mail' },
  }),
  key: Key,
});
export type SessionBody = Static<typeof SessionBody>;

export const SessionResult = Type.Object({
  token: Type.String({
    description:
      'The session token (43 characters), shown this once: send it as `Authorization: Bearer <token>`. Only its hash is kept.',
  }),
  email: Type.String(),
  expiresAt: Timestamp,
});

export const SignedOut = Type.Object({ signedOut: Type.Literal(true) });

export const AccountQuery = Type.Composite([
  Type.Omit(CursorPageQuery, ['searchString']),
  Type.Object({
    key: Type.Optional(
      Type.String({
        maxLength: 128,
        description: 'The storefront password, when the shop has one (else 403 shop_locked).',
      }),
    ),
  }),
]);
export type AccountQuery = Static<typeof AccountQuery>;

export const Account = Type.Object({
  email: Type.String({ description: 'The signed-in address.' }),
  balance: Type.Number({ description: 'The store balance in the shop currency; 0 before the first order.' }),
  currency: Type.String(),
  orders: CursorPage(PublicInvoice),
});

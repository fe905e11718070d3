import { type Static, Type } from '@sinclair/typebox';
import {
  EMAIL_PATTERN,
  Id,
  IPV4_PATTERN,
  IPV6_PATTERN,
  Nullable,
  OptionalNullable,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../schemas/common.js';
import { rule } from '../../schemas/rules.js';
import { COUNTRY_CODE_PATTERN } from './countries.js';

export const blockedItemTypes = ['email', 'ip', 'country'] as const;

const BlockedItemType = StringEnum(blockedItemTypes, { description: 'What `data` holds.' });

/** What `data` must be for each type; surrounding whitespace is allowed and ignored. */
const padded = (body: string) => `^\\s*(?:${body})\\s*$`;
const dataByType = {
  email: { pattern: padded(EMAIL_PATTERN.slice(1, -1)), errorMessage: { pattern: 'must be an e-mail address' } },
  ip: {
    pattern: padded(`${IPV4_PATTERN}(?:/(?:3[0-2]|[12]?\\d))?|(?:${IPV6_PATTERN})(?:/(?:12[0-8]|1[01]\\d|[1-9]?\\d))?`),
    errorMessage: {
      pattern: 'must be an IPv4 or IPv6 address or CIDR range, e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32',
    },
    ...rule('a range has no bits set past its prefix: 10.0.0.1/8 is refused, 10.0.0.0/8 is not'),
  },
  country: {
    pattern: padded(COUNTRY_CODE_PATTERN),
    errorMessage: { pattern: 'must be an ISO 3166-1 alpha-2 country code, e.g. DE' },
  },
} as const;

export const BlockedItemInput = Type.Object(
  {
    type: BlockedItemType,
    data: Type.String({
      minLength: 1,
      maxLength: 254,
      description:
        'email: an e-mail address, stored and matched lower-case. ' +
        'ip: an IPv4 (four decimal parts) or IPv6 address or CIDR range (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`), stored canonical; a range with bits set past its prefix ' +
        '(`10.0.0.1/8`) is a 400 rather than silently widened, `/32` and `/128` are the address itself, an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4 address. ' +
        'country: an ISO 3166-1 alpha-2 code in either case (plus XK for Kosovo), stored upper-case. Surrounding whitespace is ignored; the same type and data twice in a shop is a 409.',
    }),
    note: OptionalNullable(Type.String({ maxLength: 500, description: 'For the owner only; null or omitted clears.' })),
  },
  {
    allOf: blockedItemTypes.map((type) => ({
      if: { type: 'object', properties: { type: { const: type } }, required: ['type'] },
      then: { type: 'object', properties: { data: dataByType[type] } },
    })),
  },
);
export type BlockedItemInput = Static<typeof BlockedItemInput>;

export const BlockedItem = Type.Object({
  id: Type.Integer(),
  type: BlockedItemType,
  data: Type.String({ description: 'Normalised as described on create.' }),
  note: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const BlacklistQuery = Type.Composite([
  PageQuery,
  Type.Object({ type: Type.Optional(StringEnum(blockedItemTypes, { description: 'Only items of this type.' })) }),
]);
export type BlacklistQuery = Static<typeof BlacklistQuery>;

export const BlockedItemParams = Type.Object({ shopId: Id, blockedItemId: Id });

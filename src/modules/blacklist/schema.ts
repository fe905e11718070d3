import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, PageQuery, StringEnum, Timestamp } from '../../schemas/common.js';

export const blockedItemTypes = ['email', 'ip', 'country'] as const;

const BlockedItemType = StringEnum(blockedItemTypes, { description: 'What `data` holds.' });

export const BlockedItemInput = Type.Object({
  type: BlockedItemType,
  data: Type.String({
    minLength: 1,
    maxLength: 254,
    description:
      'email: an e-mail address, stored and matched lower-case. ' +
      'ip: an IPv4 or IPv6 address or CIDR range (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`), stored canonical; a range with bits set past its prefix ' +
      '(`10.0.0.1/8`) is a 400 rather than silently widened, `/32` and `/128` are the address itself, an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4 address. ' +
      'country: an ISO 3166-1 alpha-2 code (plus XK for Kosovo), stored upper-case. Surrounding spaces are ignored; the same type and data twice in a shop is a 409.',
  }),
  note: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'For the owner only; null or omitted clears.' }))),
});
export type BlockedItemInput = Static<typeof BlockedItemInput>;

export const BlockedItem = Type.Object({
  id: Type.Integer(),
  type: BlockedItemType,
  data: Type.String({ description: 'Normalised as described on create.' }),
  note: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const BlacklistQuery = Type.Composite([PageQuery, Type.Object({ type: Type.Optional(StringEnum(blockedItemTypes, { description: 'Only items of this type.' })) })]);
export type BlacklistQuery = Static<typeof BlacklistQuery>;

export const BlockedItemParams = Type.Object({ shopId: Id, blockedItemId: Id });


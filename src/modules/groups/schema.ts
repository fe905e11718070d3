import { Type, type Static } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../http/slug.js';
import { Id, Nullable, StringEnum, Timestamp } from '../../schemas/common.js';

export const groupTypes = ['list', 'dropdown'] as const;
export const MAX_GROUP_PRODUCTS = 500;

export const GroupInput = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200, description: 'Trimmed; must not be blank.' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 50_000, description: 'null or empty clears.' }))),
  path: Type.Optional(
    Type.String({
      pattern: SLUG_PATTERN,
      maxLength: 100,
      description: "The group's listing path, unique among the shop's products and groups (409). Generated from the title on create; kept on update when omitted.",
    }),
  ),
  productIds: Type.Optional(
    Type.Array(Id, {
      maxItems: MAX_GROUP_PRODUCTS,
      default: [],
      description: '0–500 distinct ids of live products of this shop, in display order (any other id is a 400 naming it). A product may be in several groups.',
    }),
  ),
  priority: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, default: 0, description: 'Free ordering hint for storefronts.' })),
  type: Type.Optional(StringEnum(groupTypes, { default: 'list', description: 'How a storefront shows the products: as a list or as a dropdown.' })),
  main: Type.Optional(Type.Boolean({ default: false, description: 'A flag for storefronts; several groups may carry it.' })),
});
export type GroupInput = Static<typeof GroupInput>;

export const Group = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  path: Type.String(),
  productIds: Type.Array(Type.Integer(), { description: 'Live products of the group, in display order.' }),
  priority: Type.Integer(),
  type: StringEnum(groupTypes),
  main: Type.Boolean(),
  thumbnailUrl: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** A group as a listing shows it. */
export const GroupSummary = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  path: Type.String(),
  type: StringEnum(groupTypes),
  thumbnailUrl: Nullable(Type.String()),
});

export const GroupParams = Type.Object({ shopId: Id, groupId: Id });


import { type Static, Type } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../http/slug.js';
import { Id, NonBlankText, Nullable, OptionalNullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { references } from '../../schemas/rules.js';
import { groupTypes } from '../listings/index.js';

export const MAX_GROUP_PRODUCTS = 500;

export const GroupInput = Type.Object({
  title: NonBlankText({ maxLength: 200 }),
  description: OptionalNullable(Type.String({ maxLength: 50_000, description: 'null or empty clears.' })),
  path: OptionalNullable(
    Type.String({
      pattern: SLUG_PATTERN,
      maxLength: 100,
      description:
        "The group's listing path, unique among the shop's products and groups (409). null or omitted: generated from the title on create, kept on update.",
    }),
  ),
  productIds: OptionalNullable(
    Type.Array(
      { ...Id, ...references('product') },
      {
        maxItems: MAX_GROUP_PRODUCTS,
        uniqueItems: true,
        errorMessage: { uniqueItems: 'must not list an id twice' },
        default: [],
        description:
          '0–500 distinct ids of live products of this shop, in display order (any other id is a 400 naming it); null or omitted: none. A product may be in several groups.',
      },
    ),
  ),
  priority: OptionalNullable(
    Type.Integer({
      minimum: -1_000_000,
      maximum: 1_000_000,
      default: 0,
      description: 'Free ordering hint for storefronts; null or omitted: 0.',
    }),
  ),
  type: OptionalNullable(
    StringEnum(groupTypes, {
      default: 'list',
      description: 'How a storefront shows the products: as a list or as a dropdown; null or omitted: list.',
    }),
  ),
  main: OptionalNullable(
    Type.Boolean({
      default: false,
      description: 'A flag for storefronts; several groups may carry it. null or omitted: false.',
    }),
  ),
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

export const GroupParams = Type.Object({ shopId: Id, groupId: Id });

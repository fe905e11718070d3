import { type Static, Type } from '@sinclair/typebox';
import { Id, NonBlankText, OptionalNullable, Timestamp } from '../../schemas/common.js';
import { references } from '../../schemas/rules.js';

export const MAX_CATEGORY_LISTINGS = 1000;

export const CategoryInput = Type.Object({
  name: NonBlankText({ maxLength: 100 }),
  listingIds: OptionalNullable(
    Type.Array(
      { ...Id, ...references('listing') },
      {
        maxItems: MAX_CATEGORY_LISTINGS,
        uniqueItems: true,
        errorMessage: { uniqueItems: 'must not list an id twice' },
        default: [],
        description:
          '0–1000 distinct listing ids of this shop, in display order (any other id is a 400 naming it); null or omitted: none. A listing may be in several categories.',
      },
    ),
  ),
});
export type CategoryInput = Static<typeof CategoryInput>;

export const Category = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  listingIds: Type.Array(Type.Integer(), {
    description:
      'In display order; a listing that goes away (its product grouped or deleted, its group deleted) leaves.',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CategoryParams = Type.Object({ shopId: Id, categoryId: Id });

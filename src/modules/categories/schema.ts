import { Type, type Static } from '@sinclair/typebox';
import { Id, Timestamp } from '../../schemas/common.js';

export const MAX_CATEGORY_LISTINGS = 1000;

export const CategoryInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: '1–100 characters after trimming.' }),
  listingIds: Type.Optional(
    Type.Array(Id, {
      maxItems: MAX_CATEGORY_LISTINGS,
      default: [],
      description: '0–1000 distinct listing ids of this shop, in display order (any other id is a 400 naming it). A listing may be in several categories.',
    }),
  ),
});
export type CategoryInput = Static<typeof CategoryInput>;

export const Category = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  listingIds: Type.Array(Type.Integer(), { description: 'In display order; a listing that goes away (its product grouped or deleted, its group deleted) leaves.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CategoryParams = Type.Object({ shopId: Id, categoryId: Id });


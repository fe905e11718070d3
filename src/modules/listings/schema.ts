import { type Static, Type } from '@sinclair/typebox';
import { Id, Nullable, StringEnum } from '../../schemas/common.js';
import { references, uniqueBy } from '../../schemas/rules.js';

export const listingTypes = ['product', 'group'] as const;

/** The types of group. Declared here, not in groups/schema.ts, because a listing shows its group and groups build on listings. */
export const groupTypes = ['list', 'dropdown'] as const;
export const MAX_POSITION_CHANGES = 1000;

/** A group as a listing shows it. */
export const GroupSummary = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  path: Type.String(),
  type: StringEnum(groupTypes),
  thumbnailUrl: Nullable(Type.String()),
});

/** A product as a listing shows it. */
export const ListingProduct = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  path: Type.String(),
  thumbnailUrl: Nullable(Type.String()),
  unlisted: Type.Boolean(),
  private: Type.Boolean(),
  onHold: Type.Boolean(),
  isInternal: Type.Boolean(),
  minPrice: Type.Object({ amount: Type.Number(), currency: Type.String() }),
});

export const Listing = Type.Object({
  id: Type.Integer(),
  type: StringEnum(listingTypes),
  path: Type.String({ description: 'The path of the product or group.' }),
  position: Type.Integer({ description: 'Ascending display order; ties go by id.' }),
  product: Nullable({ ...ListingProduct, description: 'Set when type is product, else null.' }),
  group: Nullable({ ...GroupSummary, description: 'Set when type is group, else null.' }),
});

export const PositionsBody = Type.Object({
  listings: Type.Array(
    Type.Object({
      listingId: { ...Id, description: 'A listing of this shop (404 otherwise).', ...references('listing') },
      position: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    }),
    {
      minItems: 1,
      maxItems: MAX_POSITION_CHANGES,
      description: '1–1000 distinct listings of this shop; listings left out keep their position.',
      ...uniqueBy('listingId'),
    },
  ),
});
export type PositionsBody = Static<typeof PositionsBody>;

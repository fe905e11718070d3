import { type Static, Type } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../http/slug.js';
import { HttpsUrl, Id, NonBlankText, Nullable, OptionalNullable, PageQuery, Timestamp } from '../../schemas/common.js';

export const AnnouncementInput = Type.Object({
  title: NonBlankText({ maxLength: 200 }),
  path: OptionalNullable(
    Type.String({
      pattern: SLUG_PATTERN,
      maxLength: 100,
      description:
        'The storefront path, unique per shop (409 when taken). On create, null or omitted generates one from the title; on PUT, null or omitted keeps the current one.',
    }),
  ),
  shortDescription: OptionalNullable(Type.String({ maxLength: 500, description: 'null, empty or omitted clears.' })),
  description: OptionalNullable(
    Type.String({ maxLength: 50_000, description: 'The body of the announcement; null or omitted is empty.' }),
  ),
  unlisted: OptionalNullable(
    Type.Boolean({ description: 'Reachable by its path but not listed on the main page. null or omitted is false.' }),
  ),
  private: OptionalNullable(Type.Boolean({ description: 'Not shown on any public page. null or omitted is false.' })),
  buttonText: OptionalNullable(Type.String({ maxLength: 64, description: 'null, empty or omitted clears.' })),
  buttonLink: OptionalNullable(HttpsUrl('The button opens it; null or omitted clears.')),
});
export type AnnouncementInput = Static<typeof AnnouncementInput>;

export const Announcement = Type.Object({
  id: Type.Integer(),
  path: Type.String(),
  title: Type.String(),
  shortDescription: Nullable(Type.String()),
  description: Type.String(),
  unlisted: Type.Boolean(),
  private: Type.Boolean(),
  buttonText: Nullable(Type.String()),
  buttonLink: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AnnouncementListQuery = PageQuery;
export type AnnouncementListQuery = Static<typeof AnnouncementListQuery>;

export const AnnouncementParams = Type.Object({ shopId: Id, announcementId: Id });

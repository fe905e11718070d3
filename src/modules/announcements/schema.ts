import { Type, type Static } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../http/slug.js';
import { Id, Nullable, PageQuery, Timestamp } from '../../schemas/common.js';

export const AnnouncementInput = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200, description: 'Trimmed; a blank title is a 400.' }),
  path: Type.Optional(
    Type.String({
      pattern: SLUG_PATTERN,
      maxLength: 100,
      description: 'The storefront path, unique per shop (409 when taken). On create, omitted generates one from the title; on PUT, omitted keeps the current one.',
    }),
  ),
  shortDescription: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'null, empty or omitted clears.' }))),
  description: Type.Optional(Type.String({ maxLength: 50_000, description: 'The body of the announcement; omitted is empty.' })),
  unlisted: Type.Optional(Type.Boolean({ description: 'Reachable by its path but not listed on the main page. Omitted is false.' })),
  private: Type.Optional(Type.Boolean({ description: 'Not shown on any public page. Omitted is false.' })),
  buttonText: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'null, empty or omitted clears.' }))),
  buttonLink: Type.Optional(
    Nullable(Type.String({ format: 'uri', pattern: '^https://', maxLength: 2048, description: 'An https URL the button opens; null or omitted clears.' })),
  ),
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

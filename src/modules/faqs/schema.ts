import { Type, type Static } from '@sinclair/typebox';
import { Id, PageQuery, Timestamp } from '../../schemas/common.js';

export const FaqInput = Type.Object({
  question: Type.String({ minLength: 1, maxLength: 500, description: 'Surrounding spaces are trimmed; a blank question is a 400.' }),
  answer: Type.String({ minLength: 1, maxLength: 10_000, description: 'Surrounding spaces are trimmed; a blank answer is a 400.' }),
  position: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      description: 'Storefront order, ascending (id breaks ties). On create, omitted puts the FAQ after the last one; on PUT, omitted keeps its place.',
    }),
  ),
});
export type FaqInput = Static<typeof FaqInput>;

export const Faq = Type.Object({
  id: Type.Integer(),
  question: Type.String(),
  answer: Type.String(),
  position: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const FaqListQuery = PageQuery;
export type FaqListQuery = Static<typeof FaqListQuery>;

export const FaqParams = Type.Object({ shopId: Id, faqId: Id });

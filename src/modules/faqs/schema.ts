import { type Static, Type } from '@sinclair/typebox';
import { Id, NonBlankText, OptionalNullable, PageQuery, Timestamp } from '../../schemas/common.js';

export const FaqInput = Type.Object({
  question: NonBlankText({ maxLength: 500 }),
  answer: NonBlankText({ maxLength: 10_000 }),
  position: OptionalNullable(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      description:
        'Storefront order, ascending (id breaks ties). On create, null or omitted puts the FAQ after the last one; on PUT, null or omitted keeps its place.',
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

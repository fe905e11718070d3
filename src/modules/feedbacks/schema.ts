import { type Static, Type } from '@sinclair/typebox';
import {
  CursorPageQuery,
  Id,
  NonBlankText,
  Nullable,
  OptionalNullable,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../schemas/common.js';
import { InvoiceId } from '../orders/index.js';

export const appealReasons = ['spam', 'abusive', 'wrong_product', 'resolved', 'other'] as const;
export const appealStatuses = ['open', 'accepted', 'rejected'] as const;

const Rating = Type.Integer({ minimum: 1, maximum: 5, description: 'Whole stars, 1–5.' });

export const FeedbackBody = Type.Object({
  rating: Rating,
  comment: OptionalNullable(
    Type.String({ maxLength: 2000, description: 'Trimmed; null, blank or omitted means no comment.' }),
  ),
});
export type FeedbackBody = Static<typeof FeedbackBody>;

export const PublicFeedbackParams = Type.Object({ invoiceId: InvoiceId });
export const FeedbackParams = Type.Object({ shopId: Id, feedbackId: Id });

/** What a customer (and the storefront) may see of a feedback: nothing about who wrote it. */
export const PublicFeedback = Type.Object({
  id: Type.Integer(),
  invoiceId: Type.String(),
  productIds: Type.Array(Type.Integer(), { description: 'The products of the invoice.' }),
  rating: Type.Integer(),
  comment: Nullable(Type.String()),
  answer: Nullable(Type.String({ description: "The shop's public answer." })),
  createdAt: Timestamp,
});

export const Appeal = Type.Object({
  reason: StringEnum(appealReasons),
  description: Type.String(),
  status: StringEnum(appealStatuses),
  createdAt: Timestamp,
});

export const OwnerFeedback = Type.Object({
  id: Type.Integer(),
  invoiceId: Type.String(),
  customerId: Type.Integer(),
  productIds: Type.Array(Type.Integer(), { description: 'The products of the invoice.' }),
  rating: Type.Integer(),
  comment: Nullable(Type.String()),
  answer: Nullable(Type.String()),
  answeredAt: Nullable(Timestamp),
  appeal: Nullable(Appeal),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AppealListItem = Type.Object({
  id: Type.Integer(),
  feedbackId: Type.Integer(),
  reason: StringEnum(appealReasons),
  description: Type.String(),
  status: StringEnum(appealStatuses),
  createdAt: Timestamp,
  resolvedAt: Nullable(Timestamp),
});

export const FeedbackListQuery = Type.Composite([
  CursorPageQuery,
  Type.Object({
    rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'Only feedbacks with this rating.' })),
  }),
]);
export type FeedbackListQuery = Static<typeof FeedbackListQuery>;

export const AppealListQuery = Type.Composite([
  PageQuery,
  Type.Object({ status: Type.Optional(StringEnum(appealStatuses, { description: 'Only appeals in this status.' })) }),
]);
export type AppealListQuery = Static<typeof AppealListQuery>;

export const AnswerBody = Type.Object({
  answer: NonBlankText({ maxLength: 2000, description: "The shop's public answer; replaces an earlier one." }),
});
export type AnswerBody = Static<typeof AnswerBody>;

export const AppealBody = Type.Object({
  reason: StringEnum(appealReasons),
  description: NonBlankText({ maxLength: 2000, description: 'Why the feedback should be reviewed.' }),
});
export type AppealBody = Static<typeof AppealBody>;

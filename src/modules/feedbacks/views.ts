import { toIso } from '../../schemas/common.js';
import type { FeedbackAppealRow, FeedbackRow } from './feedbacks.table.js';

/** Row → wire shapes: the owner's full view and the public one, which says nothing about the customer. */
export function toPublicFeedback(f: FeedbackRow, productIds: number[]) {
  return {
    id: f.id,
    invoiceId: f.invoice_id,
    productIds,
    rating: f.rating,
    comment: f.comment,
    answer: f.answer,
    createdAt: toIso(f.created_at),
  };
}

export function toOwnerFeedback(f: FeedbackRow, productIds: number[], latestAppeal: FeedbackAppealRow | undefined) {
  return {
    id: f.id,
    invoiceId: f.invoice_id,
    customerId: f.customer_id,
    productIds,
    rating: f.rating,
    comment: f.comment,
    answer: f.answer,
    answeredAt: toIso(f.answered_at),
    appeal: latestAppeal
      ? {
          reason: latestAppeal.reason,
          description: latestAppeal.description,
          status: latestAppeal.status,
          createdAt: toIso(latestAppeal.created_at),
        }
      : null,
    createdAt: toIso(f.created_at),
    updatedAt: toIso(f.updated_at),
  };
}

export function toAppealListItem(a: FeedbackAppealRow) {
  return {
    id: a.id,
    feedbackId: a.feedback_id,
    reason: a.reason,
    description: a.description,
    status: a.status,
    createdAt: toIso(a.created_at),
    resolvedAt: toIso(a.resolved_at),
  };
}

import type { Generated, Selectable } from 'kysely';

export interface FeedbacksTable {
  id: Generated<number>;
  shop_id: number;
  /** One feedback per completed invoice. */
  invoice_id: string;
  customer_id: number;
  rating: number;
  comment: string | null;
  answer: Generated<string | null>;
  answered_at: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export type AppealReason = 'spam' | 'abusive' | 'wrong_product' | 'resolved' | 'other';
export type AppealStatus = 'open' | 'accepted' | 'rejected';

export interface FeedbackAppealsTable {
  id: Generated<number>;
  shop_id: number;
  feedback_id: number;
  reason: AppealReason;
  description: string;
  /** At most one `open` appeal per feedback (partial unique index). */
  status: Generated<AppealStatus>;
  created_at: number;
  resolved_at: Generated<number | null>;
}

export type FeedbackRow = Selectable<FeedbacksTable>;
export type FeedbackAppealRow = Selectable<FeedbackAppealsTable>;

import { toIso } from '../../schemas/common.js';
import type { FaqRow } from './faqs.table.js';

/** Row → wire shape of an FAQ. */
export function toFaq(f: FaqRow) {
  return {
    id: f.id,
    question: f.question,
    answer: f.answer,
    position: f.position,
    createdAt: toIso(f.created_at),
    updatedAt: toIso(f.updated_at),
  };
}
export type FaqView = ReturnType<typeof toFaq>;

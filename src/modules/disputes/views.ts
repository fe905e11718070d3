import { toIso } from '../../schemas/common.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { DisputeRow } from './disputes.table.js';

export function toDispute(row: DisputeRow) {
  return {
    id: row.id,
    invoiceId: row.invoice_id,
    provider: row.provider,
    providerDisputeId: row.provider_dispute_id,
    status: row.status,
    reason: row.reason,
    amount: row.amount < 0 ? null : fromMinorUnits(Number(row.amount), row.currency),
    currency: row.currency,
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
    evidenceSubmittedAt: row.evidence_submitted_at === null ? null : toIso(Number(row.evidence_submitted_at)),
    submitError: row.submit_error,
  };
}

import { strings } from '../../strings';
export type DisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost';

export const disputeStatusLabels: Record<DisputeStatus, string> = strings.disputes.statusLabels;

export const disputeStatusTones: Record<DisputeStatus, 'ok' | 'warn' | 'bad' | 'info' | 'muted'> = {
  needs_response: 'warn',
  under_review: 'info',
  won: 'ok',
  lost: 'bad',
};

export const disputeAmount = (d: { amount: number | null; currency: string }) =>
  d.amount === null ? `? ${d.currency}` : `${d.amount} ${d.currency}`;

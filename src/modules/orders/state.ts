import { ConflictError } from '../../http/errors.js';
import type { InvoiceStatus } from './invoices.table.js';

/**
 * The invoice lifecycle (contract 6.1) as a table: pending invoices hold stock until they are
 * completed (paid or processed), expire unpaid, or are cancelled. Nothing else moves.
 */
export const invoiceTransitions: Readonly<Record<InvoiceStatus, readonly InvoiceStatus[]>> = {
  pending: ['completed', 'expired', 'cancelled'],
  completed: [],
  expired: [],
  cancelled: [],
};

export function canTransition(from: InvoiceStatus, to: InvoiceStatus): boolean {
  return invoiceTransitions[from].includes(to);
}

/** 409 unless the declared table allows the move. */
export function assertTransition(from: InvoiceStatus, to: InvoiceStatus): void {
  if (!canTransition(from, to)) {
    throw new ConflictError(`The invoice is ${from}; it cannot become ${to}.`, [`status: is ${from}`]);
  }
}

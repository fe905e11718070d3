import type { Invoice } from '../../../api/queries/invoices';

/** What an order's action reports: the order as answered (or nothing: read it again), or a failure. */
export interface OrderChange {
  order: Invoice;
  onChange: (next: Invoice | undefined) => void;
  onError: (error: unknown) => void;
}

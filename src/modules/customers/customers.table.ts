import type { Generated, Selectable } from 'kysely';

export interface CustomersTable {
  id: Generated<number>;
  shop_id: number;
  /** Lower-cased; one customer per e-mail per shop. */
  email: string;
  /** Minor units; never below zero (check constraint and conditional updates). */
  balance: Generated<number>;
  total_spent: Generated<number>;
  orders_count: Generated<number>;
  referral_code: string;
  referral_disabled: Generated<number>;
  created_at: number;
  updated_at: number;
  last_order_at: number | null;
}

export interface CustomerIpsTable {
  shop_id: number;
  customer_id: number;
  ip: string;
  first_seen_at: number;
  last_seen_at: number;
  count: Generated<number>;
}

export type BalanceEntryKind = 'credit' | 'debit' | 'purchase' | 'commission' | 'commission_reversal' | 'refund';

/** The balance ledger: every change to a balance is one row, with the balance it left. */
export interface BalanceEntriesTable {
  id: Generated<number>;
  shop_id: number;
  customer_id: number;
  amount: number;
  balance_after: number;
  kind: BalanceEntryKind;
  note: string | null;
  invoice_id: string | null;
  created_at: number;
}

export type CustomerRow = Selectable<CustomersTable>;

import type { Generated, Selectable } from 'kysely';

export type DisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost';

/** A payment dispute the provider reported about an order (migration 0031). */
export interface DisputesTable {
  id: Generated<number>;
  shop_id: number;
  invoice_id: string;
  /** The gateway that reported it (`cardconnect`). */
  provider: string;
  /** The provider's id of the dispute (Stripe's `dp_…`), unique per provider. */
  provider_dispute_id: string;
  status: DisputeStatus;
  /** The provider's reason code (`fraudulent`, `product_not_received`, …). */
  reason: string;
  /** Minor units of `currency` (ISO 4217) disputed. */
  amount: number;
  currency: string;
  created_at: number;
  updated_at: number;
  /** When the evidence was accepted by the provider; null until then. */
  evidence_submitted_at: number | null;
  /** The JSON of the evidence submitted. */
  evidence: string | null;
  /** Why the last submission failed (the provider's message); null when it did not. */
  submit_error: string | null;
}

/** A view of an invoice by its buyer (public invoice API, storefront invoice page): evidence in a dispute. */
export interface InvoiceViewsTable {
  id: Generated<number>;
  shop_id: number;
  invoice_id: string;
  at: number;
  ip: string | null;
  user_agent: string | null;
}

export type DisputeRow = Selectable<DisputesTable>;

import type { Generated, Selectable } from 'kysely';

export type InvoiceStatus = 'pending' | 'completed' | 'expired' | 'cancelled';
export type PaymentSource = 'provider' | 'owner' | 'balance';

export interface InvoicesTable {
  /** Public, unguessable: 24 url-safe characters. */
  id: string;
  shop_id: number;
  status: InvoiceStatus;
  gateway: string;
  customer_id: number;
  customer_email: string;
  coupon_id: number | null;
  coupon_code: string | null;
  /** Minor units of `currency`. */
  subtotal: number;
  discount: Generated<number>;
  total: number;
  currency: string;
  /** JSON object of the custom field answers, by field id. */
  custom_fields: Generated<string>;
  ip: string | null;
  user_agent: string | null;
  country: string | null;
  affiliate_code: string | null;
  /** The buyer's chat user id, kept when a product of the order has chat integration enabled. */
  chat_user_id: Generated<string | null>;
  affiliate_customer_id: number | null;
  commission: Generated<number>;
  delivery_error: Generated<string | null>;
  created_at: number;
  updated_at: number;
  expires_at: number;
  completed_at: Generated<number | null>;
  /** 1 when the customer had completed an invoice before this one (decided at completion), else 0; null until completed. */
  repeat_purchase: Generated<number | null>;
  /** The provider's id of the hosted payment started for the invoice (Stripe Checkout Session, crypto charge). */
  payment_ref: Generated<string | null>;
  /** The provider's page where the buyer pays. */
  payment_url: Generated<string | null>;
  /** When that page closes (epoch ms); the invoice itself expires CALLBACK_GRACE_MS later. */
  payment_closes_at: Generated<number | null>;
  /** Who confirmed the payment: the provider's callback, the owner (`process`), or the store balance. */
  payment_source: Generated<PaymentSource | null>;
  /** What identifies the money received: the provider's payment id, or the owner's reference for a manual payment. */
  payment_reference: Generated<string | null>;
  /** Something about the payment the owner must look at (an underpayment, another amount). */
  payment_note: Generated<string | null>;
  /** Minor units refunded so far (invoice_refunds sums to it). */
  refunded: Generated<number>;
  /** The buyer's client as abuse limits count it (clientNet: IPv4, IPv6 /64), written at checkout; null without an IP. */
  client_net: Generated<string | null>;
  /**
   * When the provider's payment page closes by itself, kept while that is later than the order's
   * hold (payment_closes_at): the page to close at the provider once the order expired.
   */
  payment_page_ends_at: Generated<number | null>;
  /**
   * The short reference the buyer quotes with a manual payment (8 characters of PAYMENT_CODE_ALPHABET,
   * shown `XXXX-XXXX`), unique per shop; null on orders placed before migration 0030.
   */
  payment_code: Generated<string | null>;
  /**
   * The SHA-256 (hex) of the shop's terms of service when the order was placed, their text in
   * invoice_terms; null when the shop had none, and on orders placed before migration 0034.
   */
  terms_hash: Generated<string | null>;
  /** When the reminder to pay is due (epoch ms; payment-reminders.ts); null when none is or once it went out (migration 0035). */
  remind_at: Generated<number | null>;
  /** When the reminder to pay was queued; null when none was (migration 0035). */
  reminded_at: Generated<number | null>;
  /** The buyer's language at checkout (`en`, `de`), in which the order's mails are written; null: the shop's (migration 0036). */
  locale: Generated<string | null>;
}

/** Each version of a shop's terms of service that an order was placed under (migration 0034), kept once. */
export interface InvoiceTermsTable {
  shop_id: number;
  /** SHA-256 of `terms`, hex. */
  hash: string;
  terms: string;
  /** When the first order under this version was placed. */
  created_at: number;
}

export interface InvoicePartsTable {
  id: Generated<number>;
  shop_id: number;
  invoice_id: string;
  product_id: number;
  variant_id: number;
  title: string;
  variant_title: string;
  product_type: string;
  quantity: number;
  unit_price: number;
  total: number;
  /** JSON string array: one serial per unit, or the service text, or the dynamic answer. */
  deliverables: Generated<string>;
  created_at: number;
}

export interface InvoiceReplacementsTable {
  id: Generated<number>;
  shop_id: number;
  invoice_id: string;
  part_id: number;
  quantity: number;
  deliverables: string;
  created_at: number;
}

export interface InvoiceRefundsTable {
  id: Generated<number>;
  shop_id: number;
  invoice_id: string;
  amount: number;
  reason: string | null;
  /** `provider`: refunded through the payment provider; `balance`: credited to the store balance; `recorded`: the owner refunds outside shopd. */
  method: 'provider' | 'balance' | 'recorded';
  provider_refund_id: string | null;
  /** `pending` while the provider is asked (the amount is already held against the invoice), then `succeeded`. */
  status: 'pending' | 'succeeded';
  created_at: number;
}

export type InvoiceRefundRow = Selectable<InvoiceRefundsTable>;
export type InvoiceRow = Selectable<InvoicesTable>;
export type InvoicePartRow = Selectable<InvoicePartsTable>;
export type InvoiceReplacementRow = Selectable<InvoiceReplacementsTable>;

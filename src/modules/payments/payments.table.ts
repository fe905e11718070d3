/** A provider callback applied (or recognised and ignored), once per provider event id and shop. */
export interface PaymentEventsTable {
  shop_id: number;
  provider: string;
  event_id: string;
  invoice_id: string | null;
  type: string;
  outcome: string;
  created_at: number;
}

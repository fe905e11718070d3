import type { Selectable } from 'kysely';

/** One gateway's settings of a shop; the provider's fields are described in shops/payments.ts. */
export interface PaymentSettingsTable {
  shop_id: number;
  provider: string;
  enabled: number;
  block_vpn: number;
  /** JSON object of the provider's non-secret fields. */
  public_fields: string;
  /** AES-256-GCM sealed JSON object of the provider's secret fields. */
  secret_fields: string | null;
  updated_at: number;
}

export type PaymentSettingsRow = Selectable<PaymentSettingsTable>;

import type { Selectable } from 'kysely';

/** A shop's protection settings (migration 0027); a shop without a row has the defaults (schema.ts). */
export interface ShopProtectionTable {
  shop_id: number;
  hold_minutes_hosted: number;
  units_per_client: number;
  pending_per_client: number;
  hosted_checkouts_per_hour: number;
  mail_per_recipient_hour: number;
  mail_per_client_hour: number;
  mail_per_shop_day: number;
  /** 0 or 1. */
  dispute_blacklist: number;
  /** 0 or 1. */
  dispute_auto_submit: number;
  /** 'off', 'suspicious' or 'always' (migration 0033). */
  challenge: string;
  challenge_threshold: number;
  updated_at: number;
}

export type ShopProtectionRow = Selectable<ShopProtectionTable>;

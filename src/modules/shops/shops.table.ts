import type { Generated, Selectable } from 'kysely';

export interface ShopsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  subdomain: string;
  currency: string;
  on_hold: Generated<number>;
  popup: Generated<string | null>;
  terms: Generated<string | null>;
  utc_offset_minutes: Generated<number>;
  /** scrypt hash of the storefront password; null when the shop is open. */
  password_hash: Generated<string | null>;
  /** Affiliate commission in basis points (1234 = 12.34 %); 0 turns commissions off. */
  affiliate_bps: Generated<number>;
  invoice_lifetime_minutes: Generated<number>;
  /** The owner's own host for the storefront, lower-case, unique across the instance (migration 0017); null when unset. */
  custom_domain: Generated<string | null>;
  /** What the TXT record `_shopd-verify.<custom_domain>` must hold; random, new with each domain (migration 0030). */
  custom_domain_token: Generated<string | null>;
  /** When `_shopd-verify.<custom_domain>` was found holding the shop's token (epoch ms); null until then (migration 0030). */
  custom_domain_verified_at: Generated<number | null>;
  /** The storefront's and the mails' language when the buyer's own is not known (`en`, `de`; migration 0036). */
  language: Generated<string>;
  /**
   * The IANA time zone its days, dates and dashboards are counted in (`Europe/Berlin`, daylight
   * saving included; migration 0038); null: the fixed `utc_offset_minutes`, which a shop with a
   * zone keeps as that zone's offset when it was set.
   */
  timezone: Generated<string | null>;
  created_at: number;
  updated_at: number;
}

export type ShopRow = Selectable<ShopsTable>;

/** A subdomain a shop gave up, held for its account until `held_until` (migration 0032). */
export interface ReleasedSubdomainsTable {
  subdomain: string;
  shop_id: number;
  account_id: number;
  released_at: number;
  held_until: number;
}

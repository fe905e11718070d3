import type { Generated, Selectable } from 'kysely';

/** What the owner or a refund set; the status shown is derived (see status.ts): revoked, disabled, expired, active, inactive. */
export type LicenseState = 'enabled' | 'disabled' | 'revoked';

/** A licence sold (migration 0026); `license_key` is unique per shop. */
export interface LicensesTable {
  id: Generated<number>;
  shop_id: number;
  license_key: string;
  product_id: number;
  variant_id: number;
  invoice_id: string;
  customer_id: number | null;
  email: string;
  state: Generated<LicenseState>;
  /** null = unlimited. */
  activation_limit: number | null;
  /** Live (not deactivated) activations, kept by every activation and deactivation. */
  activation_usage: Generated<number>;
  /** Epoch ms; null = never. */
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** An instance a licence is activated on; `id` is the instance id handed to the program. */
export interface LicenseActivationsTable {
  id: string;
  shop_id: number;
  license_id: number;
  name: string;
  created_at: number;
  deactivated_at: number | null;
  /** Who activated it (migration 0034): evidence should the payment be disputed; null before. */
  ip: string | null;
  user_agent: string | null;
}

/** A shop's Ed25519 signing key: the private JWK sealed with the server's key, the public JWK as JSON. */
export interface LicenseSigningKeysTable {
  kid: string;
  shop_id: number;
  sealed_private_key: string;
  public_jwk: string;
  created_at: number;
  retired_at: number | null;
}

export type LicenseRow = Selectable<LicensesTable>;
export type LicenseActivationRow = Selectable<LicenseActivationsTable>;
export type LicenseSigningKeyRow = Selectable<LicenseSigningKeysTable>;

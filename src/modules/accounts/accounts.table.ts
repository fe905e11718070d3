import type { Generated, Selectable } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  /** Lower-cased. */
  email: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, so an owner can tell keys apart in `keys list`. */
  prefix: string;
  /** Comma-separated subset of `read,write`. */
  scopes: string;
  created_at: number;
  revoked_at: Generated<number | null>;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;

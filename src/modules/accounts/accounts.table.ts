import type { Generated, Selectable } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  /** Lower-cased. */
  email: string;
  created_at: number;
  /** scrypt hash (src/security/passwords.ts) of the web admin's password; null: none set yet. */
  password_hash: Generated<string | null>;
  password_changed_at: Generated<number | null>;
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
  /** The owner's name for the key, if any. */
  label: Generated<string | null>;
  /** Written at most once a minute per key (authenticateApiKey), so within a minute of the truth. */
  last_used_at: Generated<number | null>;
}

/** A signed-in owner in the web admin: the cookie's token is stored as its sha256. */
export interface OwnerSessionsTable {
  id: Generated<number>;
  account_id: number;
  /** sha256 of the token, hex. */
  token_hash: string;
  created_at: number;
  /** Slides with use (12 h after the last use), never past 7 days after `created_at`. */
  expires_at: number;
  /** Written at most every 5 minutes, with `expires_at`. */
  last_used_at: number;
}

/** A one-time link to set an account's password: stored as the token's sha256. */
export interface OwnerPasswordTokensTable {
  id: Generated<number>;
  account_id: number;
  /** sha256 of the token, hex. */
  token_hash: string;
  created_at: number;
  expires_at: number;
  /** When it set a password (or was retired by another password being set); null while unused. */
  used_at: number | null;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type OwnerSessionRow = Selectable<OwnerSessionsTable>;

import type { Generated, Selectable } from 'kysely';

/** A one-time sign-in code mailed to a buyer: stored as its sha256, never as the code. */
export interface CustomerSignInCodesTable {
  id: Generated<number>;
  shop_id: number;
  /** Lower-cased. */
  email: string;
  /** sha256 of the code, hex. */
  code_hash: string;
  expires_at: number;
  /** Tries so far, the right one included; at MAX_CODE_ATTEMPTS the code is dead. */
  attempts: Generated<number>;
  /** When it opened a session (or was retired by another code of the same e-mail doing so). */
  used_at: number | null;
  created_at: number;
}

/** A signed-in buyer of one shop: the bearer token is stored as its sha256. */
export interface CustomerSessionsTable {
  id: Generated<number>;
  shop_id: number;
  /** Lower-cased: the address the code was mailed to. */
  email: string;
  /** sha256 of the token, hex. */
  token_hash: string;
  created_at: number;
  expires_at: number;
  last_used_at: number;
}

export type SignInCodeRow = Selectable<CustomerSignInCodesTable>;
export type CustomerSessionRow = Selectable<CustomerSessionsTable>;

import type { Generated } from 'kysely';

export interface IdempotencyKeysTable {
  id: Generated<number>;
  /** Whose key space this is: `account:<id>` on owner paths, `shop:<id>` on public ones. */
  scope: string;
  /** The shop the request acted on, when it names one. */
  shop_id: number | null;
  key: string;
  /** SHA-256 of method, path and body: the same key with another request is a 409. */
  fingerprint: string;
  /** Null while the first request is still running. */
  status_code: Generated<number | null>;
  response_body: Generated<string | null>;
  created_at: number;
  /** Set in the transaction of the work the key guards: that work is done, even if no answer was recorded. */
  committed_at: Generated<number | null>;
  /** What the work made or changed (an invoice id, a shop id), for answering a retry after a crash. */
  result_ref: Generated<string | null>;
  /** Until when a claim without an answer holds the key; renewed while its request runs. */
  lease_until: Generated<number | null>;
}

import type { Generated } from 'kysely';

/** One row per public page view, when Redis is not configured. */
export interface VisitsTable {
  id: Generated<number>;
  shop_id: number;
  /** SHA-256 of shop, IP and user agent: distinct visitors without keeping the IP. */
  visitor: string;
  page: string;
  created_at: number;
}

import type { Generated } from 'kysely';

/** Public page views of one visitor, page and minute, when Redis is not configured. */
export interface VisitsTable {
  id: Generated<number>;
  shop_id: number;
  /** SHA-256 of shop, IP and user agent: distinct visitors without keeping the IP. */
  visitor: string;
  page: string;
  /** Views in the row's minute (rows are aggregated before they are written). */
  views: Generated<number>;
  /** The first view's time. */
  created_at: number;
}

/** Per-shop figures the storefront shows on every page, maintained where they change. */
export interface ShopTotalsTable {
  shop_id: number;
  /** Every feedback ever left (those hidden by an accepted appeal are subtracted when read). */
  feedbacks: number;
  rating_sum: number;
  /** Customers with at least one completed order. */
  buyers: number;
}

/**
 * The products a feedback is about: those of its invoice's parts, with the feedback's
 * `created_at` and `rating` (both fixed once written) so a product's feedbacks are read newest
 * first, and counted, from the index alone.
 */
export interface FeedbackProductsTable {
  shop_id: number;
  feedback_id: number;
  product_id: number;
  created_at: number;
  rating: number;
}

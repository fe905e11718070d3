export interface ShopDesignsTable {
  shop_id: number;
  /** JSON object holding only the fields the owner has set; reads merge it over the defaults. */
  data: string;
  updated_at: number;
}

import type { Design } from './schema.js';

export interface ShopDesignsTable {
  shop_id: number;
  /** JSON `DesignOverrides`: only the fields the owner has set; reads merge it over the defaults. */
  data: string;
  updated_at: number;
}

/** The images of a design, by slot; each holds the name `receiveImage` generated, never a URL. */
export const imageSlots = ['logo', 'storefrontImage', 'seoImage', 'favicon'] as const;
export type ImageSlot = (typeof imageSlots)[number];

/**
 * What `shop_designs.data` holds. Sections carry only what the owner has set. Images are kept
 * as upload names in `images` (never in the sections), so the URLs a read shows are always
 * built from names the upload code made: no request can point the design at another file.
 */
export interface DesignOverrides {
  design?: Record<string, unknown>;
  widgets?: Record<string, unknown>;
  storefront?: Record<string, unknown>;
  seo?: Record<string, unknown>;
  links?: Design['links'];
  images?: Partial<Record<ImageSlot, string>>;
}

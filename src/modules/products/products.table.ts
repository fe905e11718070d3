import type { Generated, Selectable } from 'kysely';

export interface ProductsTable {
  id: Generated<number>;
  shop_id: number;
  title: string;
  short_description: string | null;
  description: string;
  /** Slug, unique among the shop's live products. */
  path: string;
  seo_meta_title: string | null;
  seo_meta_description: string | null;
  /** Stored upload names (see src/http/uploads), not URLs. */
  seo_image: string | null;
  thumbnail: string | null;
  unlisted: Generated<number>;
  private: Generated<number>;
  on_hold: Generated<number>;
  is_internal: Generated<number>;
  customer_note: string | null;
  /** JSON `{ enabled, required, guildId, roleIds }` or null. */
  chat_integration: string | null;
  /** Lowest live variant price in minor units, kept in step with the variants for ordering. */
  min_price: Generated<number>;
  /** Units sold, maintained by invoice completion. */
  sold_count: Generated<number>;
  created_at: number;
  updated_at: number;
  deleted_at: Generated<number | null>;
}

/** An image of a product's gallery, in the owner's order (migration 0037). */
export interface ProductImagesTable {
  id: Generated<number>;
  shop_id: number;
  product_id: number;
  /** The stored upload's name (see src/http/uploads), not a URL. */
  name: string;
  /** What the image shows, for people who cannot see it; '' when it only decorates. */
  alt: Generated<string>;
  position: number;
  created_at: number;
}

export type ProductImageRow = Selectable<ProductImagesTable>;

export type ProductType = 'serials' | 'service' | 'dynamic' | 'file';

export interface ProductVariantsTable {
  id: Generated<number>;
  shop_id: number;
  product_id: number;
  position: number;
  title: string;
  description: string | null;
  /** Minor units of the shop's currency. */
  price: number;
  product_type: ProductType;
  service_text: string | null;
  dynamic_url: string | null;
  /** Remaining stock of service/dynamic variants; null = unlimited. Serial variants: `available_serials`. */
  stock: number | null;
  /** Serial variants: how many of their serials are available (migration 0010), kept by every write to serials. */
  available_serials: Generated<number>;
  serial_delimiter: string | null;
  remove_duplicates: Generated<number>;
  min_amount: Generated<number>;
  max_amount: number | null;
  /** JSON `[{ gateway, rules: { blockVpn }, price (minor units) | null }]`; empty = every enabled gateway. */
  gateways: Generated<string>;
  /** JSON `[{ id, name, type, required, placeholder, regex }]`. */
  custom_fields: Generated<string>;
  customer_note: string | null;
  redirect_url: string | null;
  warranty_text: string | null;
  warranty_seconds: number | null;
  /** File variants (migration 0026): downloads per file per order (0 = unlimited) and link lifetime; null = the defaults (5, 24). The files are the files module's `file_attachments`. */
  file_download_limit: number | null;
  file_link_hours: number | null;
  /** 1 when each unit sold is a licence: a delivered serial, or a key generated from `license_key_pattern`. */
  license_enabled: Generated<number>;
  /** Live activations a licence allows; null = unlimited. */
  license_activation_limit: number | null;
  /** A licence ends this many days after its sale, or at `license_expires_at` (epoch ms); neither = never. */
  license_valid_days: number | null;
  license_expires_at: number | null;
  /** `X` is a random character of A–Z and 0–9, anything else is kept; null = `XXXX-XXXX-XXXX-XXXX`. */
  license_key_pattern: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: Generated<number | null>;
}

export type SerialStatus = 'available' | 'reserved' | 'delivered';

export interface SerialsTable {
  id: Generated<number>;
  shop_id: number;
  variant_id: number;
  value: string;
  status: Generated<SerialStatus>;
  invoice_id: string | null;
  created_at: number;
  delivered_at: number | null;
}

export type ProductRow = Selectable<ProductsTable>;
export type VariantRow = Selectable<ProductVariantsTable>;
export type SerialRow = Selectable<SerialsTable>;

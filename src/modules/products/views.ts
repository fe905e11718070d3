import { uploadUrl } from '../../http/uploads.js';
import { toIso } from '../../schemas/common.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { FileSummary } from '../files/index.js';
import type { ProductImageRow, ProductRow, VariantRow } from './products.table.js';
import { FILE_DEFAULTS } from './schema.js';
import type { StoredCustomField, StoredGateway } from './variant-input.js';

/**
 * Row → wire shapes of products and variants, for the owner's views. `serialValues` (serial
 * contents per variant) is given for single-product views only, never for lists.
 */
export type SerialValues = Map<number, string[]>;

/** The files of file variants, by variant id (the files module's `attachedFiles`). */
export type VariantFiles = Map<number, FileSummary[]>;

/** The columns a variant's stock figure comes from. */
export type VariantStockFields = Pick<VariantRow, 'product_type' | 'stock' | 'available_serials'>;

/** Available serials for serial variants, the counter (null = unlimited) otherwise. */
export function variantStock(v: VariantStockFields): number | null {
  return v.product_type === 'serials' ? v.available_serials : v.stock;
}

/** A product's stock over its live variants: null (unlimited) when any variant is unlimited. */
export function totalStock(variants: VariantStockFields[]): number | null {
  const stocks = variants.map(variantStock);
  return stocks.includes(null) ? null : (stocks as number[]).reduce((a, b) => a + b, 0);
}

export function toVariant(v: VariantRow, currency: string, files: VariantFiles, serialValues?: SerialValues) {
  const limits = { minAmount: v.min_amount, maxAmount: v.max_amount };
  const gateways = (JSON.parse(v.gateways) as StoredGateway[]).map((g) => ({
    gateway: g.gateway,
    rules: g.rules,
    price: g.price === null ? null : fromMinorUnits(g.price, currency),
  }));
  return {
    id: v.id,
    title: v.title,
    description: v.description,
    priceDetails: { amount: fromMinorUnits(v.price, currency), currency },
    gateways,
    productType: v.product_type,
    stock: variantStock(v),
    asSerials:
      v.product_type === 'serials'
        ? {
            ...(serialValues ? { serials: serialValues.get(v.id) ?? [] } : {}),
            delimiter: v.serial_delimiter ?? '\n',
            removeDuplicates: v.remove_duplicates === 1,
            ...limits,
          }
        : null,
    asService: v.product_type === 'service' ? { stock: v.stock, text: v.service_text ?? '', ...limits } : null,
    asDynamic: v.product_type === 'dynamic' ? { stock: v.stock, externalUrl: v.dynamic_url ?? '', ...limits } : null,
    asFile: v.product_type === 'file' ? fileSettings(v, files.get(v.id) ?? [], limits) : null,
    license:
      v.license_enabled === 1
        ? {
            activationLimit: v.license_activation_limit,
            validDays: v.license_valid_days,
            expiresAt: toIso(v.license_expires_at),
            keyPattern: v.license_key_pattern,
          }
        : null,
    customerNote: v.customer_note,
    redirectUrl: v.redirect_url,
    customFields: JSON.parse(v.custom_fields) as StoredCustomField[],
    warranty:
      v.warranty_text === null && v.warranty_seconds === null
        ? null
        : { text: v.warranty_text ?? '', durationSeconds: v.warranty_seconds ?? 0 },
  };
}

function fileSettings(v: VariantRow, files: FileSummary[], limits: { minAmount: number; maxAmount: number | null }) {
  return {
    stock: v.stock,
    fileIds: files.map((f) => f.id),
    files: files.map((f) => ({ id: f.id, name: f.name, size: f.size, contentType: f.contentType })),
    downloadLimit: v.file_download_limit ?? FILE_DEFAULTS.downloadLimit,
    linkHours: v.file_link_hours ?? FILE_DEFAULTS.linkHours,
    ...limits,
  };
}

interface ChatIntegrationView {
  enabled: boolean;
  required: boolean;
  guildId: string | null;
  roleIds: string[];
}

/** An image of a product's gallery. */
export function toProductImage(row: ProductImageRow) {
  return { id: row.id, url: uploadUrl(row.name), alt: row.alt };
}
export type ProductImageView = ReturnType<typeof toProductImage>;

export function toProduct(
  p: ProductRow,
  variants: VariantRow[],
  currency: string,
  files: VariantFiles,
  images: ProductImageRow[],
  serialValues?: SerialValues,
) {
  return {
    id: p.id,
    title: p.title,
    shortDescription: p.short_description,
    description: p.description,
    path: p.path,
    seo: { metaTitle: p.seo_meta_title, metaDescription: p.seo_meta_description, imageUrl: uploadUrl(p.seo_image) },
    thumbnailUrl: uploadUrl(p.thumbnail),
    images: images.filter((i) => i.product_id === p.id).map(toProductImage),
    unlisted: p.unlisted === 1,
    private: p.private === 1,
    onHold: p.on_hold === 1,
    isInternal: p.is_internal === 1,
    customerNote: p.customer_note,
    chatIntegration: p.chat_integration === null ? null : (JSON.parse(p.chat_integration) as ChatIntegrationView),
    variants: variants.map((v) => toVariant(v, currency, files, serialValues)),
    createdAt: toIso(p.created_at),
    updatedAt: toIso(p.updated_at),
  };
}
export type ProductView = ReturnType<typeof toProduct>;

export function toProductSummary(p: ProductRow, variants: VariantRow[], currency: string) {
  return {
    id: p.id,
    title: p.title,
    path: p.path,
    unlisted: p.unlisted === 1,
    private: p.private === 1,
    onHold: p.on_hold === 1,
    isInternal: p.is_internal === 1,
    minPrice: { amount: fromMinorUnits(p.min_price, currency), currency },
    totalStock: totalStock(variants),
    soldCount: p.sold_count,
    thumbnailUrl: uploadUrl(p.thumbnail),
    createdAt: toIso(p.created_at),
  };
}

import { uploadUrl } from '../../http/uploads.js';
import { toIso } from '../../schemas/common.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { AnnouncementRow } from '../announcements/index.js';
import type { Design } from '../design/index.js';
import type { FaqRow } from '../faqs/index.js';
import type { GroupRow } from '../groups/index.js';
import type {
  customFieldTypes,
  ProductRow,
  StoredCustomField,
  StoredGateway,
  VariantRow,
  VariantStockRow,
} from '../products/index.js';
import { totalStock, variantStock } from '../products/index.js';
import type { ShopRow } from '../shops/index.js';
import { paymentProviderNames } from '../shops/index.js';
import type { ProductCardRow, PublicFeedbackRow } from './repository.js';

/**
 * Rows → the public wire shapes. Each view builds its object field by field from what a buyer
 * may see; the response schemas then drop anything else.
 */

/** What the pages of one shop share while one answer is built. */
export interface Storefront {
  shop: ShopRow;
  design: Design;
  /** Gateways enabled in the shop right now. */
  gateways: Set<string>;
}

const inStock = (stock: number | null) => stock === null || stock > 0;

/** `{ stock }` unless the shop hides stock figures, in which case the key is absent. */
function stockFigure(store: Storefront, stock: number | null): { stock?: number | null } {
  return store.design.design.hideProductStock ? {} : { stock };
}

export function toMainDetails(store: Storefront) {
  const { shop, design } = store;
  const d = design.design;
  return {
    id: shop.id,
    name: shop.name,
    currency: shop.currency,
    onHold: shop.on_hold === 1,
    paymentMethods: paymentProviderNames.filter((name) => store.gateways.has(name)),
    popup: shop.popup,
    terms: shop.terms,
    storefront: toStorefrontTexts(design),
    design: {
      primaryColor: d.primaryColor,
      primaryColorAccent: d.primaryColorAccent,
      backgroundColor: d.backgroundColor,
      secondaryColor: d.secondaryColor,
      primaryTextColor: d.primaryTextColor,
      secondaryTextColor: d.secondaryTextColor,
      darkMode: d.darkMode,
      disableBusinessName: d.disableBusinessName,
      disableSearchBar: d.disableSearchBar,
      centerProductTitle: d.centerProductTitle,
      disableBusinessLogo: d.disableBusinessLogo,
      disableReviews: d.disableReviews,
      disableProductsSold: d.disableProductsSold,
      hideOutOfStockProducts: d.hideOutOfStockProducts,
      disableShadows: d.disableShadows,
      disableSupport: d.disableSupport,
      disableSnow: d.disableSnow,
      hideProductStock: d.hideProductStock,
      fontLink: d.fontLink,
    },
    widgets: {
      crispKey: design.widgets.crispKey,
      googleAnalyticsKey: design.widgets.googleAnalyticsKey,
      hotjarKey: design.widgets.hotjarKey,
      intercomKey: design.widgets.intercomKey,
    },
    seo: {
      metaTitle: design.seo.metaTitle,
      metaDescription: design.seo.metaDescription,
      imageUrl: design.seo.imageUrl,
    },
    socialLinks: design.links.socialLinks.map((l) => ({ platform: l.platform, link: l.link })),
    logoUrl: design.logoUrl,
    backgroundUrl: design.storefront.imageUrl,
    faviconUrl: design.seo.faviconUrl,
  };
}
export type MainDetailsView = ReturnType<typeof toMainDetails>;

export function toStorefrontTexts(design: Design) {
  const s = design.storefront;
  return {
    title: s.title,
    description: s.description,
    buttonText: s.buttonText,
    disableButton: s.disableButton,
    disableTitle: s.disableTitle,
    disableDescription: s.disableDescription,
  };
}

/** A product as listings show it; `variants` are its live ones, for the stock total. */
export function toListedProduct(store: Storefront, p: ProductCardRow, variants: VariantStockRow[]) {
  const total = totalStock(variants);
  return {
    id: p.id,
    title: p.title,
    shortDescription: p.short_description,
    path: p.path,
    thumbnailUrl: uploadUrl(p.thumbnail),
    onHold: p.on_hold === 1,
    minPrice: { amount: fromMinorUnits(p.min_price, store.shop.currency), currency: store.shop.currency },
    ...stockFigure(store, total),
    inStock: inStock(total),
    soldCount: p.sold_count,
  };
}
export type ListedProductView = ReturnType<typeof toListedProduct>;

export function toGroupHeader(g: GroupRow) {
  return {
    id: g.id,
    title: g.title,
    description: g.description,
    path: g.path,
    type: g.type,
    priority: g.priority,
    main: g.main === 1,
    thumbnailUrl: uploadUrl(g.thumbnail),
  };
}

/**
 * The gateways a variant can be paid with now: those it names that the shop has enabled, or
 * every enabled one when it names none; each with its price (the override or the variant price).
 */
function effectiveGateways(store: Storefront, v: VariantRow) {
  const currency = store.shop.currency;
  const named = JSON.parse(v.gateways) as StoredGateway[];
  const entries = named.length > 0 ? named : paymentProviderNames.map((gateway) => ({ gateway, price: null }));
  return entries
    .filter((g) => store.gateways.has(g.gateway))
    .map((g) => ({ gateway: g.gateway, price: { amount: fromMinorUnits(g.price ?? v.price, currency), currency } }));
}

export function toPublicVariant(store: Storefront, v: VariantRow) {
  const stock = variantStock(v);
  return {
    id: v.id,
    title: v.title,
    description: v.description,
    productType: v.product_type,
    priceDetails: { amount: fromMinorUnits(v.price, store.shop.currency), currency: store.shop.currency },
    ...stockFigure(store, stock),
    inStock: inStock(stock),
    minAmount: v.min_amount,
    maxAmount: v.max_amount,
    gateways: effectiveGateways(store, v),
    customFields: (JSON.parse(v.custom_fields) as StoredCustomField[]).map((f) => ({
      id: f.id,
      name: f.name,
      type: f.type as (typeof customFieldTypes)[number],
      required: f.required,
      placeholder: f.placeholder,
      regex: f.regex,
    })),
    warranty:
      v.warranty_text === null && v.warranty_seconds === null
        ? null
        : { text: v.warranty_text ?? '', durationSeconds: v.warranty_seconds ?? 0 },
  };
}

export function toPublicProduct(
  store: Storefront,
  p: ProductRow,
  variants: VariantRow[],
  gallery: { name: string; alt: string }[],
) {
  return {
    id: p.id,
    title: p.title,
    shortDescription: p.short_description,
    description: p.description,
    path: p.path,
    seo: { metaTitle: p.seo_meta_title, metaDescription: p.seo_meta_description, imageUrl: uploadUrl(p.seo_image) },
    thumbnailUrl: uploadUrl(p.thumbnail),
    images: gallery.map((g) => ({ url: uploadUrl(g.name), alt: g.alt })),
    onHold: p.on_hold === 1,
    soldCount: p.sold_count,
    variants: variants.map((v) => toPublicVariant(store, v)),
  };
}
export type PublicProductView = ReturnType<typeof toPublicProduct>;

export function toPublicFeedback(f: PublicFeedbackRow, products: { id: number; title: string }[]) {
  return {
    id: f.id,
    rating: f.rating,
    comment: f.comment,
    answer: f.answer,
    answeredAt: toIso(f.answered_at),
    products,
    createdAt: toIso(f.created_at),
  };
}

export function toAnnouncementSummary(a: AnnouncementRow) {
  return {
    id: a.id,
    path: a.path,
    title: a.title,
    shortDescription: a.short_description,
    buttonText: a.button_text,
    buttonLink: a.button_link,
    createdAt: toIso(a.created_at),
  };
}

export function toPublicAnnouncement(a: AnnouncementRow) {
  return { ...toAnnouncementSummary(a), description: a.description };
}

export function toPublicFaq(f: FaqRow) {
  return { id: f.id, question: f.question, answer: f.answer, position: f.position };
}

/** Average of ratings to 2 decimals, null when there are none. */
export function averageRating(totals: { count: number; ratingSum: number }): number | null {
  return totals.count === 0 ? null : Math.round((totals.ratingSum * 100) / totals.count) / 100;
}

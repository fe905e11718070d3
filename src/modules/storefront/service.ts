import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { NotFoundError } from '../../http/errors.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import { getDesign } from '../design/index.js';
import { enabledGatewayNames } from '../settings/index.js';
import type { ShopRow } from '../shops/index.js';
import {
  listingAtPath,
  publicCategories,
  publicListings,
  reachableProduct,
  reachableProducts,
} from './catalog.service.js';
import * as repo from './repository.js';
import type { FeedbacksQuery } from './schema.js';
import {
  averageRating,
  type Storefront,
  toAnnouncementSummary,
  toMainDetails,
  toPublicAnnouncement,
  toPublicFaq,
  toPublicFeedback,
  toStorefrontTexts,
} from './views.js';

/**
 * The six public storefront pages (contract section 9), each built for a shop already opened
 * with its password (see storefront-lock.ts). Every page carries `mainDetails`.
 */
type Conn = Kysely<Database>;

const LATEST_FEEDBACKS = 10;
const LISTED_ANNOUNCEMENTS = 50;
/** A sitemap holds at most 50,000 URLs; announcements past these newest ones are left out. */
const SITEMAP_MAX_ANNOUNCEMENTS = 10_000;

async function loadStorefront(db: Conn, shop: ShopRow): Promise<Storefront> {
  const [design, gateways] = await Promise.all([getDesign(db, shop.id), enabledGatewayNames(db, shop.id)]);
  return { shop, design, gateways };
}

async function feedbackViews(db: Conn, shopId: number, rows: repo.PublicFeedbackRow[]) {
  const products = await repo.productsOfInvoices(
    db,
    shopId,
    rows.map((f) => f.invoice_id),
  );
  return rows.map((f) => toPublicFeedback(f, products.get(f.invoice_id) ?? []));
}

async function latestFeedbacks(db: Conn, shopId: number, filter: repo.FeedbackFilter) {
  return feedbackViews(db, shopId, await repo.listFeedbacks(db, shopId, filter, { limit: LATEST_FEEDBACKS }));
}

async function statistics(db: Conn, shopId: number) {
  const [feedbacks, sales] = await Promise.all([repo.feedbackTotals(db, shopId, {}), repo.salesTotals(db, shopId)]);
  return {
    rating: averageRating(feedbacks),
    totalFeedbacks: feedbacks.count,
    totalProductsSold: sales.productsSold,
    customersCount: sales.customers,
  };
}

/** Listings with the categories that point at them. */
async function catalog(db: Conn, store: Storefront) {
  const listings = await publicListings(db, store);
  const categories = await publicCategories(db, store.shop.id, new Set(listings.map((l) => l.id)));
  return { listings, categories };
}

/** What every page of the shop shows around its content (name, design, terms, links); for pages built elsewhere. */
export async function shopDetails(db: Conn, shop: ShopRow) {
  return toMainDetails(await loadStorefront(db, shop));
}

/**
 * What the web storefront's checkout page shows: the product ordered (by id, as the product
 * page's form sends it; private and internal products are a 404 like an unknown id), with its
 * variants' prices, gateways and custom fields, and the shop's details.
 */
export async function checkoutPage(db: Conn, shop: ShopRow, productId: number) {
  const store = await loadStorefront(db, shop);
  const product = await reachableProduct(db, store, productId);
  if (!product) throw new NotFoundError('Product');
  return { product, mainDetails: toMainDetails(store) };
}

/**
 * What the web storefront's cart shows: of these products (the cart's, by id), those a buyer can
 * still reach, as the checkout page shows them, and the shop's details. A product gone private,
 * internal or deleted since it was added is simply absent (the cart drops its line).
 */
export async function cartPage(db: Conn, shop: ShopRow, productIds: number[]) {
  const store = await loadStorefront(db, shop);
  const products = await reachableProducts(db, store, [...new Set(productIds)]);
  return { products: new Map(products.map((p) => [p.id, p])), mainDetails: toMainDetails(store) };
}

export async function mainPage(db: Conn, shop: ShopRow) {
  const store = await loadStorefront(db, shop);
  const [stats, feedbacks, announcements, { listings, categories }] = await Promise.all([
    statistics(db, shop.id),
    latestFeedbacks(db, shop.id, {}),
    repo.listListedAnnouncements(db, shop.id, LISTED_ANNOUNCEMENTS),
    catalog(db, store),
  ]);
  return {
    shop: {
      ...toStorefrontTexts(store.design),
      name: shop.name,
      backgroundUrl: store.design.storefront.imageUrl,
      statistics: stats,
    },
    feedbacks,
    announcements: announcements.map(toAnnouncementSummary),
    listings,
    categories,
    mainDetails: toMainDetails(store),
  };
}

/**
 * What a shop's sitemap lists: the path of every listing the storefront shows and of the products
 * inside its groups, its listed announcements, and whether it has reviews and terms pages.
 */
export async function sitemapEntries(db: Conn, shop: ShopRow) {
  const store = await loadStorefront(db, shop);
  const [listings, announcements] = await Promise.all([
    publicListings(db, store),
    repo.listListedAnnouncements(db, shop.id, SITEMAP_MAX_ANNOUNCEMENTS),
  ]);
  const listingPaths = new Set<string>();
  for (const listing of listings) {
    listingPaths.add(listing.path);
    for (const product of listing.group?.products ?? []) listingPaths.add(product.path);
  }
  return {
    listingPaths: [...listingPaths],
    announcementPaths: announcements.map((a) => a.path),
    reviews: !store.design.design.disableReviews,
    terms: shop.terms !== null,
  };
}

export async function listingsPage(db: Conn, shop: ShopRow) {
  const store = await loadStorefront(db, shop);
  return { ...(await catalog(db, store)), mainDetails: toMainDetails(store) };
}

export async function listingPage(db: Conn, shop: ShopRow, path: string) {
  const store = await loadStorefront(db, shop);
  const { listing, productIds } = await listingAtPath(db, store, path);
  const [feedbacks, totals] = await Promise.all([
    latestFeedbacks(db, shop.id, { productIds }),
    repo.feedbackTotals(db, shop.id, { productIds }),
  ]);
  return {
    listing,
    feedbacks,
    statistics: { rating: averageRating(totals), totalFeedbacks: totals.count },
    mainDetails: toMainDetails(store),
  };
}

/** Newest first; `cursor` (keyset) wins over `pageNumber`; `searchString` matches comment and answer. */
export async function feedbacksPage(db: Conn, shop: ShopRow, query: FeedbacksQuery) {
  const filter = { search: query.searchString };
  const { limit, offset } = pageWindow(query);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const [store, rows, totalCount, stats] = await Promise.all([
    loadStorefront(db, shop),
    repo.listFeedbacks(db, shop.id, filter, { limit: limit + 1, offset: after ? 0 : offset, after }),
    repo.feedbackTotals(db, shop.id, filter).then((t) => t.count),
    statistics(db, shop.id),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (f) => ({ value: f.created_at, id: f.id }));
  return {
    feedbacks: { ...toPage(await feedbackViews(db, shop.id, items), totalCount, query), nextCursor },
    statistics: stats,
    mainDetails: toMainDetails(store),
  };
}

export async function faqsPage(db: Conn, shop: ShopRow) {
  const [store, faqs] = await Promise.all([loadStorefront(db, shop), repo.listFaqs(db, shop.id)]);
  return { faqs: faqs.map(toPublicFaq), mainDetails: toMainDetails(store) };
}

export async function announcementPage(db: Conn, shop: ShopRow, path: string) {
  const announcement = await repo.findReachableAnnouncementByPath(db, shop.id, path);
  if (!announcement) throw new NotFoundError('Announcement');
  const view = toPublicAnnouncement(announcement);
  return { ...view, announcement: view, mainDetails: toMainDetails(await loadStorefront(db, shop)) };
}

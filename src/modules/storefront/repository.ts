import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { searchText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type { AnnouncementRow } from '../announcements/index.js';
import type { CategoryRow } from '../categories/index.js';
import type { FaqRow } from '../faqs/index.js';
import type { GroupRow } from '../groups/index.js';
import { type ProductRow, reachableProducts } from '../products/index.js';

/**
 * The storefront's read queries. Every visibility rule of the public pages is a `where` here,
 * so a private or internal product, a private announcement or a withdrawn feedback is never
 * loaded for a public answer in the first place.
 */
type Conn = Kysely<Database>;

export function findReachableProductByPath(db: Conn, shopId: number, path: string): Promise<ProductRow | undefined> {
  return reachableProducts(db, shopId).selectAll().where('path', '=', path).executeTakeFirst();
}

/** A product a buyer may order by id (the checkout page's `product`): the same rule as by path. */
export function findReachableProductById(db: Conn, shopId: number, productId: number): Promise<ProductRow | undefined> {
  return reachableProducts(db, shopId).selectAll().where('id', '=', productId).executeTakeFirst();
}

/** Of these ids, the products a buyer can reach (a cart's). */
export function findReachableProductsByIds(db: Conn, shopId: number, productIds: number[]): Promise<ProductRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return reachableProducts(db, shopId).selectAll().where('id', 'in', productIds).execute();
}

/** Of these ids, the products a storefront lists: reachable and not unlisted. */
function listed(db: Conn, shopId: number, productIds: number[]) {
  return reachableProducts(db, shopId).where('unlisted', '=', 0).where('id', 'in', productIds);
}

export function listedProducts(db: Conn, shopId: number, productIds: number[]): Promise<ProductRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return listed(db, shopId, productIds).selectAll().execute();
}

/** What a listing card shows of a product (no descriptions, SEO or settings). */
const CARD_COLUMNS = [
  'id',
  'title',
  'short_description',
  'path',
  'thumbnail',
  'on_hold',
  'min_price',
  'sold_count',
] as const;
export type ProductCardRow = Pick<ProductRow, (typeof CARD_COLUMNS)[number]>;

/** `listedProducts` with only the columns of a listing card. */
export function listedProductCards(db: Conn, shopId: number, productIds: number[]): Promise<ProductCardRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return listed(db, shopId, productIds).select(CARD_COLUMNS).execute();
}

export function findGroupByPath(db: Conn, shopId: number, path: string): Promise<GroupRow | undefined> {
  return db
    .selectFrom('product_groups')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('path', '=', path)
    .executeTakeFirst();
}

export function groupsByIds(db: Conn, shopId: number, groupIds: number[]): Promise<GroupRow[]> {
  if (groupIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_groups')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', 'in', groupIds)
    .execute();
}

/** The id of the listing that shows this product or group on its own, if any (a grouped product has none). */
export async function listingIdOf(
  db: Conn,
  shopId: number,
  target: { productId: number } | { groupId: number },
): Promise<number | null> {
  let query = db.selectFrom('listings').select('id').where('shop_id', '=', shopId);
  query =
    'productId' in target
      ? query.where('product_id', '=', target.productId)
      : query.where('group_id', '=', target.groupId);
  return (await query.executeTakeFirst())?.id ?? null;
}

/** Categories in creation order (they have no position of their own). */
export function listCategories(db: Conn, shopId: number): Promise<CategoryRow[]> {
  return db.selectFrom('categories').selectAll().where('shop_id', '=', shopId).orderBy('id').execute();
}

// ---- feedbacks -------------------------------------------------------------------------------

export interface FeedbackFilter {
  /** Only feedbacks whose invoice had a part of one of these products. */
  productIds?: number[];
  search?: string | undefined;
}

/** Not withdrawn: no accepted appeal names the feedback (few appeals, through their index). */
function notWithdrawn(shopId: number, feedbackId: 'f.id' | 'fp.feedback_id') {
  return sql<SqlBool>`not exists (select 1 from feedback_appeals a where a.shop_id = ${shopId} and a.feedback_id = ${sql.ref(feedbackId)} and a.status = 'accepted')`;
}

/** A public feedback search: comment and answer (through the feedbacks' search index). */
const searchIn = (db: Conn, search: string) => searchText(db, 'feedbacks', 'f', ['comment', 'answer'], search);

/** Feedbacks shown publicly: those of the shop whose appeal, if any, was not accepted. */
function publicFeedbacks(db: Conn, shopId: number, filter: FeedbackFilter) {
  let query = db.selectFrom('feedbacks as f').where('f.shop_id', '=', shopId).where(notWithdrawn(shopId, 'f.id'));
  const { productIds, search } = filter;
  if (productIds !== undefined) {
    if (productIds.length === 0) return query.where(sql<SqlBool>`1 = 0`);
    // Through feedback_products' index: the feedbacks about these products, however few.
    query = query.where('f.id', 'in', (eb) =>
      eb
        .selectFrom('feedback_products as fp')
        .select('fp.feedback_id')
        .where('fp.shop_id', '=', shopId)
        .where('fp.product_id', 'in', productIds),
    );
  }
  if (search) query = query.where(searchIn(db, search));
  return query;
}

/**
 * The public feedbacks about one product (a product page), driven by feedback_products' index on
 * (shop_id, product_id, created_at, feedback_id): newest first without reading the others.
 */
function productFeedbacks(db: Conn, shopId: number, productId: number, search: string | undefined) {
  let query = db
    .selectFrom('feedback_products as fp')
    .innerJoin('feedbacks as f', 'f.id', 'fp.feedback_id')
    .where('fp.shop_id', '=', shopId)
    .where('fp.product_id', '=', productId)
    .where('f.shop_id', '=', shopId)
    .where(notWithdrawn(shopId, 'fp.feedback_id'));
  if (search) query = query.where(searchIn(db, search));
  return query;
}

const oneProduct = (filter: FeedbackFilter) => (filter.productIds?.length === 1 ? filter.productIds[0] : undefined);

const FEEDBACK_COLUMNS = [
  'f.id',
  'f.invoice_id',
  'f.rating',
  'f.comment',
  'f.answer',
  'f.answered_at',
  'f.created_at',
] as const;

export function listFeedbacks(
  db: Conn,
  shopId: number,
  filter: FeedbackFilter,
  page: { limit: number; offset?: number; after?: KeysetPosition | undefined },
) {
  const productId = oneProduct(filter);
  // Both orders are (created_at, id) of the feedback: a cursor of one serves the other.
  if (productId !== undefined) {
    return pageOf(
      productFeedbacks(db, shopId, productId, filter.search).select(FEEDBACK_COLUMNS),
      { sortColumn: 'fp.created_at', idColumn: 'fp.feedback_id' },
      page,
    ).execute();
  }
  return pageOf(
    publicFeedbacks(db, shopId, filter).select(FEEDBACK_COLUMNS),
    { sortColumn: 'f.created_at', idColumn: 'f.id' },
    page,
  ).execute();
}
export type PublicFeedbackRow = Awaited<ReturnType<typeof listFeedbacks>>[number];

/** How many public feedbacks match, and the sum of their ratings. */
export async function feedbackTotals(
  db: Conn,
  shopId: number,
  filter: FeedbackFilter,
): Promise<{ count: number; ratingSum: number }> {
  // The whole shop: the maintained totals, less the (few) feedbacks an accepted appeal hides.
  if (filter.productIds === undefined && !filter.search) {
    const [totals, hidden] = await Promise.all([
      db.selectFrom('shop_totals').select(['feedbacks', 'rating_sum']).where('shop_id', '=', shopId).executeTakeFirst(),
      db
        .selectFrom('feedbacks as f')
        .select((eb) => [
          eb.fn.countAll<number | string>().as('n'),
          eb.fn.sum<number | string | null>('f.rating').as('total'),
        ])
        // The accepted appeals (few, through their index) name the feedbacks: no scan of the shop's feedbacks.
        .where('f.id', 'in', (eb) =>
          eb
            .selectFrom('feedback_appeals as a')
            .select('a.feedback_id')
            .where('a.shop_id', '=', shopId)
            .where('a.status', '=', 'accepted'),
        )
        .executeTakeFirstOrThrow(),
    ]);
    return {
      count: Number(totals?.feedbacks ?? 0) - Number(hidden.n),
      ratingSum: Number(totals?.rating_sum ?? 0) - Number(hidden.total ?? 0),
    };
  }
  const productId = oneProduct(filter);
  const row =
    productId !== undefined && !filter.search
      ? // One product: from its feedback_products index range alone (ratings are in it).
        await db
          .selectFrom('feedback_products as fp')
          .select((eb) => [
            eb.fn.countAll<number | string>().as('n'),
            eb.fn.sum<number | string | null>('fp.rating').as('total'),
          ])
          .where('fp.shop_id', '=', shopId)
          .where('fp.product_id', '=', productId)
          .where(notWithdrawn(shopId, 'fp.feedback_id'))
          .executeTakeFirstOrThrow()
      : await publicFeedbacks(db, shopId, filter)
          .select((eb) => [
            eb.fn.countAll<number | string>().as('n'),
            eb.fn.sum<number | string | null>('f.rating').as('total'),
          ])
          .executeTakeFirstOrThrow();
  return { count: Number(row.n), ratingSum: Number(row.total ?? 0) };
}

/** A new feedback: counted in the shop's totals and indexed under the products of its invoice. */
export async function addFeedbackToTotals(
  db: Conn,
  shopId: number,
  feedback: { id: number; invoiceId: string; rating: number; createdAt: number },
): Promise<void> {
  await db
    .insertInto('shop_totals')
    .values({ shop_id: shopId, feedbacks: 1, rating_sum: feedback.rating, buyers: 0 })
    .onConflict((oc) =>
      oc.column('shop_id').doUpdateSet({
        feedbacks: sql`shop_totals.feedbacks + 1`,
        rating_sum: sql`shop_totals.rating_sum + ${feedback.rating}`,
      }),
    )
    .execute();
  await db
    .insertInto('feedback_products')
    .columns(['shop_id', 'feedback_id', 'product_id', 'created_at', 'rating'])
    .expression((eb) =>
      eb
        .selectFrom('invoice_parts')
        .select([
          sql.lit(shopId).as('shop_id'),
          sql.lit(feedback.id).as('feedback_id'),
          'product_id',
          sql.lit(feedback.createdAt).as('created_at'),
          sql.lit(feedback.rating).as('rating'),
        ])
        .distinct()
        .where('shop_id', '=', shopId)
        .where('invoice_id', '=', feedback.invoiceId),
    )
    .execute();
}

/**
 * Recomputes the shop's totals from the rows themselves (rebuild.ts): its feedbacks and their
 * ratings, and `buyers`, counted by the customers module.
 */
export async function rebuildShopTotals(db: Conn, shopId: number, buyers: number): Promise<void> {
  await db.deleteFrom('shop_totals').where('shop_id', '=', shopId).execute();
  await sql`
    insert into shop_totals (shop_id, feedbacks, rating_sum, buyers)
    select ${shopId},
      (select count(*) from feedbacks f where f.shop_id = ${shopId}),
      (select coalesce(sum(f.rating), 0) from feedbacks f where f.shop_id = ${shopId}),
      ${buyers}`.execute(db);
}

/** Recomputes the shop's feedback index (each feedback under the products of its invoice) from the rows themselves. */
export async function rebuildFeedbackIndex(db: Conn, shopId: number): Promise<void> {
  await db.deleteFrom('feedback_products').where('shop_id', '=', shopId).execute();
  await sql`
    insert into feedback_products (shop_id, feedback_id, product_id, created_at, rating)
    select distinct f.shop_id, f.id, p.product_id, f.created_at, f.rating
    from feedbacks f join invoice_parts p on p.invoice_id = f.invoice_id
    where f.shop_id = ${shopId}`.execute(db);
}

/** Counts a new buyer of the shop (a customer's first completed order). */
export async function countFirstBuyer(db: Conn, shopId: number): Promise<void> {
  await db
    .insertInto('shop_totals')
    .values({ shop_id: shopId, feedbacks: 0, rating_sum: 0, buyers: 1 })
    .onConflict((oc) => oc.column('shop_id').doUpdateSet({ buyers: sql`shop_totals.buyers + 1` }))
    .execute();
}

/**
 * The products each invoice bought, as they were named on the invoice, leaving out products
 * that are private or internal now: a feedback must not reveal them.
 */
export async function productsOfInvoices(
  db: Conn,
  shopId: number,
  invoiceIds: string[],
): Promise<Map<string, { id: number; title: string }[]>> {
  const byInvoice = new Map<string, { id: number; title: string }[]>(invoiceIds.map((id) => [id, []]));
  if (invoiceIds.length === 0) return byInvoice;
  // Two indexed reads rather than a join: joined with products, SQLite may choose to walk every
  // part of every product (a million rows in a large shop) instead of the few parts of these invoices.
  const parts = await db
    .selectFrom('invoice_parts')
    .select(['invoice_id', 'product_id', 'title'])
    .where('shop_id', '=', shopId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
  const productIds = [...new Set(parts.map((p) => p.product_id))];
  const shown =
    productIds.length === 0
      ? new Set<number>()
      : new Set(
          (
            await db
              .selectFrom('products')
              .select('id')
              .where('shop_id', '=', shopId)
              .where('id', 'in', productIds)
              .where('private', '=', 0)
              .where('is_internal', '=', 0)
              .execute()
          ).map((p) => p.id),
        );
  for (const r of parts) {
    if (!shown.has(r.product_id)) continue;
    const list = byInvoice.get(r.invoice_id)!;
    if (!list.some((p) => p.id === r.product_id)) list.push({ id: r.product_id, title: r.title });
  }
  return byInvoice;
}

/** Units sold over every product the shop has had, and customers with a completed order. */
export async function salesTotals(db: Conn, shopId: number): Promise<{ productsSold: number; customers: number }> {
  const [sold, totals] = await Promise.all([
    db
      .selectFrom('products')
      .select((eb) => eb.fn.sum<number | string | null>('sold_count').as('n'))
      .where('shop_id', '=', shopId)
      .executeTakeFirstOrThrow(),
    db.selectFrom('shop_totals').select('buyers').where('shop_id', '=', shopId).executeTakeFirst(),
  ]);
  return { productsSold: Number(sold.n ?? 0), customers: Number(totals?.buyers ?? 0) };
}

// ---- FAQs and announcements ------------------------------------------------------------------

export function listFaqs(db: Conn, shopId: number): Promise<FaqRow[]> {
  return db.selectFrom('faqs').selectAll().where('shop_id', '=', shopId).orderBy('position').orderBy('id').execute();
}

/** Announcements a storefront lists: neither private nor unlisted, newest first. */
export function listListedAnnouncements(db: Conn, shopId: number, limit: number): Promise<AnnouncementRow[]> {
  return db
    .selectFrom('announcements')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('private', '=', 0)
    .where('unlisted', '=', 0)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** An announcement by path; unlisted ones are reachable, private ones are not. */
export function findReachableAnnouncementByPath(
  db: Conn,
  shopId: number,
  path: string,
): Promise<AnnouncementRow | undefined> {
  return db
    .selectFrom('announcements')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('path', '=', path)
    .where('private', '=', 0)
    .executeTakeFirst();
}

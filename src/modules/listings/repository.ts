import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import type { ListingRow } from './listings.table.js';

type Conn = Kysely<Database>;

/** What each listing shows and where, in storefront order (the columns a storefront and a sync need, no more). */
export function listListingRows(
  db: Conn,
  shopId: number,
): Promise<Pick<ListingRow, 'id' | 'type' | 'product_id' | 'group_id' | 'position'>[]> {
  return db
    .selectFrom('listings')
    .select(['id', 'type', 'product_id', 'group_id', 'position'])
    .where('shop_id', '=', shopId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** Live products of the shop that belong to no group: each gets a listing of its own. */
export async function ungroupedProductIds(db: Conn, shopId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('products as p')
    .select('p.id')
    .where('p.shop_id', '=', shopId)
    .where('p.deleted_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('group_products as gp')
            .select('gp.product_id')
            .where('gp.shop_id', '=', shopId)
            .whereRef('gp.product_id', '=', 'p.id'),
        ),
      ),
    )
    .orderBy('p.id')
    .execute();
  return rows.map((r) => r.id);
}

export async function groupIds(db: Conn, shopId: number): Promise<number[]> {
  const rows = await db.selectFrom('product_groups').select('id').where('shop_id', '=', shopId).orderBy('id').execute();
  return rows.map((r) => r.id);
}

export async function deleteListings(db: Conn, shopId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('listings').where('shop_id', '=', shopId).where('id', 'in', ids).execute();
}

export async function insertListings(
  db: Conn,
  shopId: number,
  listings: { type: 'product' | 'group'; targetId: number; position: number }[],
  now: number,
): Promise<void> {
  if (listings.length === 0) return;
  await db
    .insertInto('listings')
    .values(
      listings.map((l) => ({
        shop_id: shopId,
        type: l.type,
        product_id: l.type === 'product' ? l.targetId : null,
        group_id: l.type === 'group' ? l.targetId : null,
        position: l.position,
        created_at: now,
      })),
    )
    .execute();
}

/** Whether a live product or a group of the shop already uses this path (listing paths are shared). */
export async function listingPathTaken(
  db: Conn,
  shopId: number,
  path: string,
  except: { productId?: number; groupId?: number } = {},
): Promise<boolean> {
  let products = db
    .selectFrom('products')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('path', '=', path)
    .where('deleted_at', 'is', null);
  if (except.productId !== undefined) products = products.where('id', '!=', except.productId);
  let groups = db.selectFrom('product_groups').select('id').where('shop_id', '=', shopId).where('path', '=', path);
  if (except.groupId !== undefined) groups = groups.where('id', '!=', except.groupId);
  const [p, g] = await Promise.all([products.executeTakeFirst(), groups.executeTakeFirst()]);
  return p !== undefined || g !== undefined;
}

/** Listings joined with the product or group each one shows, as the owner's views need them. */
function listingsWithTargets(db: Conn, shopId: number, search: string | undefined) {
  let query = db
    .selectFrom('listings as l')
    .leftJoin('products as p', (join) => join.onRef('p.id', '=', 'l.product_id').on('p.shop_id', '=', shopId))
    .leftJoin('product_groups as g', (join) => join.onRef('g.id', '=', 'l.group_id').on('g.shop_id', '=', shopId))
    .where('l.shop_id', '=', shopId);
  if (search) query = query.where((eb) => eb.or([containsText('p.title', search), containsText('g.title', search)]));
  return query;
}

export function listListings(
  db: Conn,
  shopId: number,
  options: { search?: string | undefined; limit?: number; offset?: number } = {},
) {
  let query = listingsWithTargets(db, shopId, options.search)
    .select([
      'l.id',
      'l.type',
      'l.position',
      'l.product_id',
      'l.group_id',
      'p.title as product_title',
      'p.path as product_path',
      'p.thumbnail as product_thumbnail',
      'p.unlisted as product_unlisted',
      'p.private as product_private',
      'p.on_hold as product_on_hold',
      'p.is_internal as product_is_internal',
      'p.min_price as product_min_price',
      'g.title as group_title',
      'g.path as group_path',
      'g.type as group_type',
      'g.thumbnail as group_thumbnail',
    ])
    .orderBy('l.position')
    .orderBy('l.id');
  if (options.limit !== undefined) query = query.limit(options.limit).offset(options.offset ?? 0);
  return query.execute();
}
export type ListingWithTarget = Awaited<ReturnType<typeof listListings>>[number];

export async function countListings(db: Conn, shopId: number, search?: string): Promise<number> {
  const row = await listingsWithTargets(db, shopId, search)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Which of these ids are listings of the shop. */
export async function existingListingIds(db: Conn, shopId: number, listingIds: number[]): Promise<Set<number>> {
  if (listingIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('listings')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('id', 'in', listingIds)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Sets the positions of these listings in one statement. */
export async function setListingPositions(
  db: Conn,
  shopId: number,
  positions: { listingId: number; position: number }[],
): Promise<void> {
  if (positions.length === 0) return;
  const cases = sql.join(
    positions.map((p) => sql`when ${p.listingId} then cast(${p.position} as integer)`),
    sql` `,
  );
  await db
    .updateTable('listings')
    .set({ position: sql<number>`case id ${cases} end` })
    .where('shop_id', '=', shopId)
    .where(
      'id',
      'in',
      positions.map((p) => p.listingId),
    )
    .execute();
}

import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import type { CategoriesTable, CategoryRow } from './categories.table.js';

type Conn = Kysely<Database>;

export function findCategory(db: Conn, shopId: number, categoryId: number): Promise<CategoryRow | undefined> {
  return db
    .selectFrom('categories')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', categoryId)
    .executeTakeFirst();
}

export function insertCategory(db: Conn, row: Insertable<CategoriesTable>): Promise<CategoryRow> {
  return db.insertInto('categories').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function renameCategory(
  db: Conn,
  shopId: number,
  categoryId: number,
  name: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('categories')
    .set({ name, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', categoryId)
    .execute();
}

export async function deleteCategory(db: Conn, shopId: number, categoryId: number): Promise<void> {
  await db
    .deleteFrom('category_listings')
    .where('shop_id', '=', shopId)
    .where('category_id', '=', categoryId)
    .execute();
  await db.deleteFrom('categories').where('shop_id', '=', shopId).where('id', '=', categoryId).execute();
}

/** One page of the shop's categories, newest first. */
export function listCategories(
  db: Conn,
  shopId: number,
  options: { search?: string | undefined; limit: number; offset: number },
): Promise<CategoryRow[]> {
  let query = db.selectFrom('categories').selectAll().where('shop_id', '=', shopId);
  if (options.search) query = query.where(containsText('name', options.search));
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
}

export async function countCategories(db: Conn, shopId: number, search?: string): Promise<number> {
  let query = db
    .selectFrom('categories')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId);
  if (search) query = query.where(containsText('name', search));
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** The listing ids of each category, in the category's order. */
export async function listingIdsOfCategories(
  db: Conn,
  shopId: number,
  categoryIds: number[],
): Promise<Map<number, number[]>> {
  const byCategory = new Map<number, number[]>(categoryIds.map((id) => [id, []]));
  if (categoryIds.length === 0) return byCategory;
  const rows = await db
    .selectFrom('category_listings')
    .select(['category_id', 'listing_id'])
    .where('shop_id', '=', shopId)
    .where('category_id', 'in', categoryIds)
    .orderBy('category_id')
    .orderBy('position')
    .execute();
  for (const r of rows) byCategory.get(r.category_id)?.push(r.listing_id);
  return byCategory;
}

/** Makes the category's listings exactly these, in this order. */
export async function replaceCategoryListings(
  db: Conn,
  shopId: number,
  categoryId: number,
  listingIds: number[],
): Promise<void> {
  await db
    .deleteFrom('category_listings')
    .where('shop_id', '=', shopId)
    .where('category_id', '=', categoryId)
    .execute();
  if (listingIds.length === 0) return;
  await db
    .insertInto('category_listings')
    .values(
      listingIds.map((listingId, position) => ({
        shop_id: shopId,
        category_id: categoryId,
        listing_id: listingId,
        position,
      })),
    )
    .execute();
}

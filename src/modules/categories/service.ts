import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type Context, onConnection } from '../../domain/context.js';
import { NotFoundError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { type PageQuery, toIso } from '../../schemas/common.js';
import { checkListingIds } from '../listings/index.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import type { CategoryRow } from './categories.table.js';
import * as repo from './repository.js';
import type { CategoryInput } from './schema.js';

type Conn = Kysely<Database>;

function toCategory(c: CategoryRow, listingIds: number[]) {
  return { id: c.id, name: c.name, listingIds, createdAt: toIso(c.created_at), updatedAt: toIso(c.updated_at) };
}

async function requireCategory(db: Conn, shopId: number, categoryId: number): Promise<CategoryRow> {
  const category = await repo.findCategory(db, shopId, categoryId);
  if (!category) throw new NotFoundError('Category');
  return category;
}

/** The listing ids of each of these categories, in the category's order: what the storefront shows under each. */
export function categoryListings(db: Conn, shopId: number, categoryIds: number[]): Promise<Map<number, number[]>> {
  return repo.listingIdsOfCategories(db, shopId, categoryIds);
}

export async function getCategory(ctx: Context, shop: ShopRow, categoryId: number) {
  const { db } = ctx;
  const category = await requireCategory(db, shop.id, categoryId);
  const listingIds = await repo.listingIdsOfCategories(db, shop.id, [categoryId]);
  return toCategory(category, listingIds.get(categoryId) ?? []);
}

export async function listCategories(ctx: Context, shop: ShopRow, query: PageQuery) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  const [rows, totalCount] = await Promise.all([
    repo.listCategories(db, shop.id, { search: query.searchString, limit, offset }),
    repo.countCategories(db, shop.id, query.searchString),
  ]);
  const listingIds = await repo.listingIdsOfCategories(
    db,
    shop.id,
    rows.map((c) => c.id),
  );
  return toPage(
    rows.map((c) => toCategory(c, listingIds.get(c.id) ?? [])),
    totalCount,
    query,
  );
}

export async function createCategory(ctx: Context, shop: ShopRow, input: CategoryInput) {
  const name = input.name.trim();
  const listingIds = input.listingIds ?? [];
  return ctx.db.transaction().execute(async (trx) => {
    // Listings come and go with product and group writes, which hold this lock.
    await lockShop(trx, shop.id);
    await checkListingIds(trx, shop.id, listingIds, 'listingIds');
    const now = ctx.clock.now();
    const category = await repo.insertCategory(trx, { shop_id: shop.id, name, created_at: now, updated_at: now });
    await repo.replaceCategoryListings(trx, shop.id, category.id, listingIds);
    return getCategory(onConnection(ctx, trx), shop, category.id);
  });
}

/** Full update: an omitted `listingIds` empties the category. */
export async function updateCategory(ctx: Context, shop: ShopRow, categoryId: number, input: CategoryInput) {
  const name = input.name.trim();
  const listingIds = input.listingIds ?? [];
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    await requireCategory(trx, shop.id, categoryId);
    await checkListingIds(trx, shop.id, listingIds, 'listingIds');
    await repo.renameCategory(trx, shop.id, categoryId, name, ctx.clock.now());
    await repo.replaceCategoryListings(trx, shop.id, categoryId, listingIds);
    return getCategory(onConnection(ctx, trx), shop, categoryId);
  });
}

export async function deleteCategory(ctx: Context, shop: ShopRow, categoryId: number) {
  await ctx.db.transaction().execute(async (trx) => {
    await requireCategory(trx, shop.id, categoryId);
    await repo.deleteCategory(trx, shop.id, categoryId);
  });
  return { id: categoryId, deleted: true as const };
}

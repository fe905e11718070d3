import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { searchText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type {
  ProductImageRow,
  ProductImagesTable,
  ProductRow,
  ProductsTable,
  ProductVariantsTable,
  SerialStatus,
  VariantRow,
} from './products.table.js';
import type { VariantStockFields } from './views.js';

type Conn = Kysely<Database>;
type ProductPatch = Omit<Updateable<ProductsTable>, 'id' | 'shop_id' | 'created_at'>;
type VariantPatch = Omit<Updateable<ProductVariantsTable>, 'id' | 'shop_id' | 'product_id' | 'created_at'>;

const SERIAL_BATCH = 500;

/** `searchString` on products: title, path and short description. */
function matchesSearch(db: Conn, text: string) {
  return searchText(db, 'products', 'products', ['title', 'path', 'short_description'], text);
}

export function findProduct(db: Conn, shopId: number, productId: number): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', productId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function insertProduct(db: Conn, row: Insertable<ProductsTable>): Promise<ProductRow> {
  return db.insertInto('products').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateProduct(
  db: Conn,
  shopId: number,
  productId: number,
  patch: ProductPatch,
  now: number,
): Promise<void> {
  await db
    .updateTable('products')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', productId)
    .execute();
}

/** Updates these live products at once; returns how many rows changed. */
export async function updateProducts(
  db: Conn,
  shopId: number,
  productIds: number[],
  patch: ProductPatch,
  now: number,
): Promise<number> {
  const result = await db
    .updateTable('products')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Which of these ids are live products of the shop. */
export async function existingProductIds(db: Conn, shopId: number, productIds: number[]): Promise<Set<number>> {
  const rows = await db
    .selectFrom('products')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.id));
}

export type ProductOrder = { column: 'created_at' | 'title' | 'min_price'; direction: 'asc' | 'desc' };

/** One page of live products in the given order, `id` breaking ties in the same direction. */
export function listProducts(
  db: Conn,
  shopId: number,
  options: {
    order: ProductOrder;
    search?: string | undefined;
    limit: number;
    offset?: number;
    after?: KeysetPosition | undefined;
  },
): Promise<ProductRow[]> {
  const { column, direction } = options.order;
  let query = db.selectFrom('products').selectAll().where('shop_id', '=', shopId).where('deleted_at', 'is', null);
  if (options.search) query = query.where(matchesSearch(db, options.search));
  return pageOf(query, { sortColumn: column, idColumn: 'id', direction }, options).execute();
}

export async function countProducts(db: Conn, shopId: number, search?: string): Promise<number> {
  let query = db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId)
    .where('deleted_at', 'is', null);
  if (search) query = query.where(matchesSearch(db, search));
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** What a variant contributes to its product's stock total. */
export type VariantStockRow = VariantStockFields & Pick<VariantRow, 'product_id'>;

/** The stock figures of these products' live variants (a listing's total), without the rest of each variant. */
export function listVariantStocks(db: Conn, shopId: number, productIds: number[]): Promise<VariantStockRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_variants')
    .select(['product_id', 'product_type', 'stock', 'available_serials'])
    .where('shop_id', '=', shopId)
    .where('product_id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .execute();
}

export function listVariants(db: Conn, shopId: number, productIds: number[]): Promise<VariantRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('product_id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .orderBy('product_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** Every variant row of the shop, removed ones included (their prices are history but stay consistent). */
export function listAllVariants(db: Conn, shopId: number): Promise<VariantRow[]> {
  return db.selectFrom('product_variants').selectAll().where('shop_id', '=', shopId).execute();
}

export async function liveProductIds(db: Conn, shopId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('products')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}

/** A variant by id, removed or not (orders and replacements still deliver from it). */
export function findVariant(db: Conn, shopId: number, variantId: number): Promise<VariantRow | undefined> {
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', variantId)
    .executeTakeFirst();
}

export function insertVariant(db: Conn, row: Insertable<ProductVariantsTable>): Promise<VariantRow> {
  return db.insertInto('product_variants').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateVariant(
  db: Conn,
  shopId: number,
  variantId: number,
  patch: VariantPatch,
  now: number,
): Promise<void> {
  await db
    .updateTable('product_variants')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', variantId)
    .execute();
}

export async function updateVariantsOfProducts(
  db: Conn,
  shopId: number,
  productIds: number[],
  patch: VariantPatch,
  now: number,
): Promise<void> {
  await db
    .updateTable('product_variants')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('product_id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Removed variants stay as rows (their sold history and reserved serials point at them). */
export async function softDeleteVariants(db: Conn, shopId: number, variantIds: number[], now: number): Promise<void> {
  if (variantIds.length === 0) return;
  await db
    .updateTable('product_variants')
    .set({ deleted_at: now, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', 'in', variantIds)
    .execute();
}

export async function softDeleteProducts(db: Conn, shopId: number, productIds: number[], now: number): Promise<number> {
  const result = await db
    .updateTable('products')
    .set({ deleted_at: now, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  await db
    .updateTable('product_variants')
    .set({ deleted_at: now, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('product_id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .execute();
  return Number(result.numUpdatedRows);
}

/** Lowest live variant price of each product, kept on the product for ordering by price. */
export async function refreshMinPrices(db: Conn, shopId: number, productIds: number[]): Promise<void> {
  if (productIds.length === 0) return;
  await db
    .updateTable('products')
    .set((eb) => ({
      min_price: eb.fn.coalesce(
        eb
          .selectFrom('product_variants as v')
          .select((v) => v.fn.min('v.price').as('p'))
          .whereRef('v.product_id', '=', 'products.id')
          .where('v.deleted_at', 'is', null),
        eb.val(0),
      ),
    }))
    .where('shop_id', '=', shopId)
    .where('id', 'in', productIds)
    .execute();
}

/**
 * Adds `delta` to a serial variant's maintained stock (`available_serials`, migration 0010).
 * Called by every write that makes serials available or takes them away, in its transaction.
 * Answers the new count; undefined when `delta` is 0 (nothing written, nothing read).
 */
export async function changeAvailableSerials(
  db: Conn,
  shopId: number,
  variantId: number,
  delta: number,
): Promise<number | undefined> {
  if (delta === 0) return undefined;
  const row = await db
    .updateTable('product_variants')
    .set({ available_serials: sql`available_serials + ${delta}` })
    .where('shop_id', '=', shopId)
    .where('id', '=', variantId)
    .returning('available_serials')
    .executeTakeFirst();
  return row?.available_serials;
}

/** Sets every serial variant's maintained stock of the shop to its count of available serials. */
export async function recountAvailableSerials(db: Conn, shopId: number): Promise<void> {
  await sql`
    update product_variants set available_serials = (
      select count(*) from serials s where s.shop_id = ${shopId} and s.variant_id = product_variants.id and s.status = 'available')
    where shop_id = ${shopId}`.execute(db);
}

/** Available serials of these variants, oldest first, with their ids. */
export function availableSerials(
  db: Conn,
  shopId: number,
  variantIds: number[],
): Promise<{ id: number; variant_id: number; value: string }[]> {
  if (variantIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('serials')
    .select(['id', 'variant_id', 'value'])
    .where('shop_id', '=', shopId)
    .where('variant_id', 'in', variantIds)
    .where('status', '=', 'available')
    .orderBy('id')
    .execute();
}

/** A live variant of a live product, by ids. */
export function findLiveVariant(
  db: Conn,
  shopId: number,
  productId: number,
  variantId: number,
): Promise<VariantRow | undefined> {
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('product_id', '=', productId)
    .where('id', '=', variantId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Every serial value a variant holds or held, with its status. */
export function serialStatuses(
  db: Conn,
  shopId: number,
  variantId: number,
): Promise<{ value: string; status: SerialStatus }[]> {
  return db
    .selectFrom('serials')
    .select(['value', 'status'])
    .where('shop_id', '=', shopId)
    .where('variant_id', '=', variantId)
    .execute();
}

/** Values of a variant's serials held by pending invoices or already delivered. */
export async function soldSerialValues(db: Conn, shopId: number, variantId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('serials')
    .select('value')
    .where('shop_id', '=', shopId)
    .where('variant_id', '=', variantId)
    .where('status', 'in', ['reserved', 'delivered'])
    .execute();
  return rows.map((r) => r.value);
}

export async function insertSerials(
  db: Conn,
  shopId: number,
  variantId: number,
  values: string[],
  now: number,
): Promise<void> {
  for (let i = 0; i < values.length; i += SERIAL_BATCH) {
    const batch = values
      .slice(i, i + SERIAL_BATCH)
      .map((value) => ({ shop_id: shopId, variant_id: variantId, value, created_at: now }));
    await db.insertInto('serials').values(batch).execute();
  }
  await changeAvailableSerials(db, shopId, variantId, values.length);
}

/** Deletes a variant's available serials by id; reserved and delivered ones are history and stay. */
export async function deleteAvailableSerials(
  db: Conn,
  shopId: number,
  variantId: number,
  serialIds: number[],
): Promise<void> {
  let deleted = 0;
  for (let i = 0; i < serialIds.length; i += SERIAL_BATCH) {
    const result = await db
      .deleteFrom('serials')
      .where('shop_id', '=', shopId)
      .where('variant_id', '=', variantId)
      .where('status', '=', 'available')
      .where('id', 'in', serialIds.slice(i, i + SERIAL_BATCH))
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  await changeAvailableSerials(db, shopId, variantId, -deleted);
}

export async function deleteAllAvailableSerials(db: Conn, shopId: number, variantId: number): Promise<void> {
  const result = await db
    .deleteFrom('serials')
    .where('shop_id', '=', shopId)
    .where('variant_id', '=', variantId)
    .where('status', '=', 'available')
    .executeTakeFirst();
  await changeAvailableSerials(db, shopId, variantId, -Number(result.numDeletedRows));
}

/** Stored image names of these products, their galleries' too (for removing files after a delete). */
export async function productImages(db: Conn, shopId: number, productIds: number[]): Promise<string[]> {
  const rows = await db
    .selectFrom('products')
    .select(['thumbnail', 'seo_image'])
    .where('shop_id', '=', shopId)
    .where('id', 'in', productIds)
    .execute();
  const gallery = await listProductImages(db, shopId, productIds);
  return [
    ...rows.flatMap((r) => [r.thumbnail, r.seo_image]).filter((n): n is string => n !== null),
    ...gallery.map((g) => g.name),
  ];
}

/** Live variants of every shop with a `blockVpn` gateway rule on (the start-up check of VPN ranges). */
export async function countBlockVpnVariants(db: Conn): Promise<number> {
  const row = await db
    .selectFrom('product_variants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('deleted_at', 'is', null)
    // The JSON.stringify form variant-input.ts stores.
    .where('gateways', 'like', '%"blockVpn":true%')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The gallery images of these products, each product's in its order. */
export function listProductImages(db: Conn, shopId: number, productIds: number[]): Promise<ProductImageRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_images')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('product_id', 'in', productIds)
    .orderBy('product_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export function insertProductImage(db: Conn, row: Insertable<ProductImagesTable>): Promise<ProductImageRow> {
  return db.insertInto('product_images').values(row).returningAll().executeTakeFirstOrThrow();
}

export function deleteProductImage(
  db: Conn,
  shopId: number,
  productId: number,
  imageId: number,
): Promise<{ name: string } | undefined> {
  return db
    .deleteFrom('product_images')
    .where('shop_id', '=', shopId)
    .where('product_id', '=', productId)
    .where('id', '=', imageId)
    .returning('name')
    .executeTakeFirst();
}

export async function updateProductImage(
  db: Conn,
  shopId: number,
  imageId: number,
  patch: { position: number; alt: string },
): Promise<void> {
  await db.updateTable('product_images').set(patch).where('shop_id', '=', shopId).where('id', '=', imageId).execute();
}

/** Removes the gallery rows of these products (deleted: their files go after the commit). */
export async function deleteImagesOfProducts(db: Conn, shopId: number, productIds: number[]): Promise<void> {
  if (productIds.length === 0) return;
  await db.deleteFrom('product_images').where('shop_id', '=', shopId).where('product_id', 'in', productIds).execute();
}

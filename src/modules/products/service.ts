import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type Context, onConnection, type WriteContext } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { domainEvents } from '../../domain/events.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import { currencyDigits } from '../../schemas/currencies.js';
import { rescaleMinorUnits } from '../../schemas/money.js';
import { type FileStorage, replaceStoredFile } from '../../storage/file-storage.js';
import { assertVpnBlockingAvailable, type VpnRanges } from '../blacklist/index.js';
import { attachedFiles, attachFiles, detachFiles } from '../files/index.js';
import { claimListingPath, syncListings } from '../listings/index.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import type { ProductRow, VariantRow } from './products.table.js';
import * as repo from './repository.js';
import type { NewProduct, ProductInput, ProductListQuery } from './schema.js';
import { checkDeliveryUrls, type PreparedVariant, prepareVariant, type StoredGateway } from './variant-input.js';
import { type SerialValues, toProduct, toProductSummary, type VariantFiles } from './views.js';

type Conn = Kysely<Database>;

function productColumns(input: NewProduct) {
  return {
    title: input.title,
    description: input.description,
    short_description: input.shortDescription ?? null,
    seo_meta_title: input.seo?.metaTitle ?? null,
    seo_meta_description: input.seo?.metaDescription ?? null,
    unlisted: input.unlisted ? 1 : 0,
    private: input.private ? 1 : 0,
    on_hold: input.onHold ? 1 : 0,
    is_internal: input.isInternal ? 1 : 0,
    customer_note: input.customerNote ?? null,
    chat_integration: input.chatIntegration ? JSON.stringify(chatIntegrationOf(input.chatIntegration)) : null,
  };
}

export function chatIntegrationOf(c: NonNullable<NewProduct['chatIntegration']>) {
  return { enabled: c.enabled, required: c.required ?? false, guildId: c.guildId ?? null, roleIds: c.roleIds ?? [] };
}

/**
 * Makes a variant's available serials equal `wanted`, as a multiset: serials that stay keep
 * their rows, the others are deleted, new values are added. Reserved and delivered serials are
 * never touched, and a value already reserved or delivered is never added again — a serial is
 * delivered at most once, ever, even when the owner saves a list read before a sale. A value
 * that is in stock stays in stock when sent back, even if another copy of it was sold: what
 * GET answers, sent back, changes nothing.
 */
async function replaceAvailableSerials(db: Conn, shopId: number, variantId: number, wanted: string[], now: number) {
  const remaining = new Map<string, number>();
  for (const v of wanted) remaining.set(v, (remaining.get(v) ?? 0) + 1);
  const stale: number[] = [];
  for (const serial of await repo.availableSerials(db, shopId, [variantId])) {
    const left = remaining.get(serial.value) ?? 0;
    if (left > 0) remaining.set(serial.value, left - 1);
    else stale.push(serial.id);
  }
  await repo.deleteAvailableSerials(db, shopId, variantId, stale);
  const sold = new Set(await repo.soldSerialValues(db, shopId, variantId));
  const added = [...remaining]
    .filter(([value]) => !sold.has(value))
    .flatMap(([value, count]) => Array<string>(count).fill(value));
  await repo.insertSerials(db, shopId, variantId, added, now);
}

async function saveVariant(
  db: Conn,
  shopId: number,
  productId: number,
  position: number,
  v: PreparedVariant,
  existing: VariantRow | undefined,
  now: number,
) {
  let variantId: number;
  if (existing) {
    variantId = existing.id;
    await repo.updateVariant(
      db,
      shopId,
      variantId,
      { ...v.columns, position, ...(v.stock !== undefined ? { stock: v.stock } : {}) },
      now,
    );
    if (existing.product_type === 'serials' && v.columns.product_type !== 'serials')
      await repo.deleteAllAvailableSerials(db, shopId, variantId);
    if (existing.product_type === 'file' && v.columns.product_type !== 'file')
      await detachFiles(db, shopId, [variantId]);
  } else {
    const row = await repo.insertVariant(db, {
      ...v.columns,
      shop_id: shopId,
      product_id: productId,
      position,
      stock: v.stock ?? null,
      created_at: now,
      updated_at: now,
    });
    variantId = row.id;
  }
  if (v.serials !== undefined) await replaceAvailableSerials(db, shopId, variantId, v.serials, now);
  if (v.fileIds !== undefined)
    await attachFiles(db, shopId, variantId, v.fileIds, `variants[${position}].asFile.fileIds`);
}

/** The serial contents of these variants (stock figures are on the variant rows themselves). */
async function serialValuesOf(db: Conn, shopId: number, variants: VariantRow[]): Promise<SerialValues> {
  const serialValues = new Map<number, string[]>();
  for (const s of await repo.availableSerials(
    db,
    shopId,
    variants.filter((v) => v.product_type === 'serials').map((v) => v.id),
  )) {
    const list = serialValues.get(s.variant_id) ?? [];
    list.push(s.value);
    serialValues.set(s.variant_id, list);
  }
  return serialValues;
}

// What other modules read of the catalog, in the caller's handle (inside its transaction, the transaction).

/**
 * 400 naming every `<field>[i]` that is not a live product of this shop (the schemas refuse
 * repeats); ids in `accepted` pass without a look (a coupon's own products, deleted since).
 */
export async function checkProductIds(
  db: Conn,
  shopId: number,
  productIds: number[],
  field: string,
  accepted: ReadonlySet<number> = new Set(),
): Promise<void> {
  const toCheck = productIds.filter((id) => !accepted.has(id));
  if (toCheck.length === 0) return;
  const live = await repo.existingProductIds(db, shopId, toCheck);
  const problems = productIds.flatMap((id, i) =>
    accepted.has(id) || live.has(id) ? [] : [`${field}[${i}]: is not a product of this shop`],
  );
  if (problems.length > 0) throw new ValidationError(problems);
}

function byProduct<T extends { product_id: number }>(rows: T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const row of rows) {
    const list = map.get(row.product_id);
    if (list) list.push(row);
    else map.set(row.product_id, [row]);
  }
  return map;
}

/** The live variants of these products by product id, each product's in its order; a product without any is absent. */
export async function liveVariantsByProduct(
  db: Conn,
  shopId: number,
  productIds: number[],
): Promise<Map<number, VariantRow[]>> {
  return byProduct(await repo.listVariants(db, shopId, productIds));
}

/**
 * The stock figures of these products' live variants by product id (what a listing's total is
 * made of: views.ts totalStock), without the rest of each variant.
 */
export async function variantStocksByProduct(
  db: Conn,
  shopId: number,
  productIds: number[],
): Promise<Map<number, repo.VariantStockRow[]>> {
  return byProduct(await repo.listVariantStocks(db, shopId, productIds));
}

/** How many live variants, of every shop, have a `blockVpn` gateway rule on (the start-up check of VPN ranges). */
export function countVpnBlockingVariants(db: Conn): Promise<number> {
  return repo.countBlockVpnVariants(db);
}

/**
 * Recounts the shop's serial stock (`available_serials`) from its serials: for serials written in
 * bulk past the services (the benchmark's seeder, an import), which keep it as they go otherwise.
 */
export function recountAvailableSerials(db: Conn, shopId: number): Promise<void> {
  return repo.recountAvailableSerials(db, shopId);
}

export async function requireProduct(db: Conn, shopId: number, productId: number): Promise<ProductRow> {
  const product = await repo.findProduct(db, shopId, productId);
  if (!product) throw new NotFoundError('Product');
  return product;
}

/** One product as its owner sees it, serial contents included. */
export async function getProduct(ctx: Context, shop: ShopRow, productId: number) {
  const { db } = ctx;
  const product = await requireProduct(db, shop.id, productId);
  const variants = await repo.listVariants(db, shop.id, [productId]);
  return toProduct(
    product,
    variants,
    shop.currency,
    await filesOf(db, shop.id, variants),
    await repo.listProductImages(db, shop.id, [productId]),
    await serialValuesOf(db, shop.id, variants),
  );
}

/** The attached files of the file variants among these. */
function filesOf(db: Conn, shopId: number, variants: VariantRow[]): Promise<VariantFiles> {
  const fileVariants = variants.filter((v) => v.product_type === 'file').map((v) => v.id);
  return fileVariants.length === 0 ? Promise.resolve(new Map()) : attachedFiles(db, shopId, fileVariants);
}

/** How a product may be saved: whether a dynamic variant's URL may point at private addresses (ALLOW_PRIVATE_WEBHOOKS), and the server's VPN ranges. */
export interface SaveOptions {
  allowPrivate: boolean;
  vpn: VpnRanges | null;
}

/**
 * Without VPN ranges configured a variant's `blockVpn` rule cannot be turned on (422). One the
 * variant already had (stored before the rule was checked) may be saved again unchanged, so
 * that a product read and written back stays writable.
 */
function checkVpnRules(variants: PreparedVariant[], current: Map<number, VariantRow>, vpn: VpnRanges | null): void {
  if (vpn) return;
  variants.forEach((v, i) => {
    const before = v.id === undefined ? [] : (JSON.parse(current.get(v.id)?.gateways ?? '[]') as StoredGateway[]);
    (JSON.parse(v.columns.gateways) as StoredGateway[]).forEach((g, j) => {
      if (g.rules.blockVpn && !before.some((b) => b.gateway === g.gateway && b.rules.blockVpn)) {
        assertVpnBlockingAvailable(vpn, `variants[${i}].gateways[${j}].rules.blockVpn`);
      }
    });
  });
}

export async function createProduct(ctx: Context, shop: ShopRow, input: NewProduct, options: SaveOptions) {
  // Variant ids of the body are not read: a product read from GET can be posted as a copy.
  const variants = input.variants.map((v, i) => prepareVariant({ ...v, id: undefined }, i, shop.currency));
  checkVpnRules(variants, new Map(), options.vpn);
  await checkDeliveryUrls(input.variants, options.allowPrivate);
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const path = await claimListingPath(trx, shop.id, {
      path: input.path ?? undefined,
      title: input.title,
      field: 'path',
    });
    const now = ctx.clock.now();
    const product = await repo.insertProduct(trx, {
      ...productColumns(input),
      shop_id: shop.id,
      path,
      created_at: now,
      updated_at: now,
    });
    for (const [i, v] of variants.entries()) await saveVariant(trx, shop.id, product.id, i, v, undefined, now);
    await repo.refreshMinPrices(trx, shop.id, [product.id]);
    await syncListings(trx, shop.id, now);
    return getProduct(onConnection(ctx, trx), shop, product.id);
  });
}

/**
 * Full update: product fields are replaced; a variant with `id` is edited, one without is
 * added, and a variant left out is removed (its row stays for the orders that sold it).
 * Omitted serials or stock keep the current stock; omitted path keeps the current path.
 */
export async function updateProduct(
  ctx: Context,
  shop: ShopRow,
  productId: number,
  input: ProductInput,
  options: SaveOptions,
) {
  const variants = input.variants.map((v, i) => prepareVariant(v, i, shop.currency));
  await checkDeliveryUrls(input.variants, options.allowPrivate);
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const product = await requireProduct(trx, shop.id, productId);
    const current = new Map((await repo.listVariants(trx, shop.id, [productId])).map((v) => [v.id, v]));
    const kept = new Set<number>();
    variants.forEach((v, i) => {
      if (v.id === undefined) return;
      if (!current.has(v.id)) throw ValidationError.field(`variants[${i}].id`, 'is not a variant of this product');
      if (kept.has(v.id)) throw ValidationError.field(`variants[${i}].id`, 'appears twice');
      kept.add(v.id);
    });
    checkVpnRules(variants, current, options.vpn);
    const path =
      input.path == null
        ? product.path
        : await claimListingPath(trx, shop.id, { path: input.path, title: input.title, field: 'path' }, { productId });
    const now = ctx.clock.now();
    await repo.updateProduct(trx, shop.id, productId, { ...productColumns(input), path }, now);
    const removed = [...current.keys()].filter((id) => !kept.has(id));
    await repo.softDeleteVariants(trx, shop.id, removed, now);
    await detachFiles(trx, shop.id, removed);
    for (const [i, v] of variants.entries())
      await saveVariant(trx, shop.id, productId, i, v, v.id === undefined ? undefined : current.get(v.id), now);
    await repo.refreshMinPrices(trx, shop.id, [productId]);
    return getProduct(onConnection(ctx, trx), shop, productId);
  });
}

const orders = {
  createdAt: { column: 'created_at', direction: 'asc' },
  '-createdAt': { column: 'created_at', direction: 'desc' },
  title: { column: 'title', direction: 'asc' },
  '-title': { column: 'title', direction: 'desc' },
  price: { column: 'min_price', direction: 'asc' },
  '-price': { column: 'min_price', direction: 'desc' },
} as const satisfies Record<string, repo.ProductOrder>;

/**
 * A page of live products with their variants. `cursor` (keyset, any order) wins over
 * `pageNumber`; every page also answers the cursor to the next one.
 */
async function pageOfProducts(db: Conn, shop: ShopRow, query: ProductListQuery) {
  const orderBy = query.orderBy ?? '-createdAt';
  const order = orders[orderBy];
  // A cursor names the order that made it (the default's keeps the old form): one of another order is a 400.
  const cursorOrder = orderBy === '-createdAt' ? undefined : orderBy;
  const { limit, offset } = pageWindow(query);
  const after =
    query.cursor === undefined
      ? undefined
      : decodeCursor(query.cursor, order.column === 'title' ? 'string' : 'number', 'number', cursorOrder);
  const [rows, totalCount] = await Promise.all([
    repo.listProducts(db, shop.id, {
      order,
      search: query.searchString,
      limit: limit + 1,
      ...(after ? { after } : { offset }),
    }),
    repo.countProducts(db, shop.id, query.searchString),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (p) => ({ value: p[order.column], id: p.id }), cursorOrder);
  const variants = await repo.listVariants(
    db,
    shop.id,
    items.map((p) => p.id),
  );
  const variantsOf = (productId: number) => variants.filter((v) => v.product_id === productId);
  return { items, variantsOf, totalCount, nextCursor };
}

export async function listProducts(ctx: Context, shop: ShopRow, query: ProductListQuery) {
  const page = await pageOfProducts(ctx.db, shop, query);
  const files = await filesOf(
    ctx.db,
    shop.id,
    page.items.flatMap((p) => page.variantsOf(p.id)),
  );
  const images = await repo.listProductImages(
    ctx.db,
    shop.id,
    page.items.map((p) => p.id),
  );
  const items = page.items.map((p) => toProduct(p, page.variantsOf(p.id), shop.currency, files, images));
  return { ...toPage(items, page.totalCount, query), nextCursor: page.nextCursor };
}

export async function listProductSummaries(ctx: Context, shop: ShopRow, query: ProductListQuery) {
  const page = await pageOfProducts(ctx.db, shop, query);
  const items = page.items.map((p) => toProductSummary(p, page.variantsOf(p.id), shop.currency));
  return { ...toPage(items, page.totalCount, query), nextCursor: page.nextCursor };
}

/**
 * Removes products from the catalog, their groups (the `products.deleted` event: groups owns the
 * memberships) and their listings (soft delete: orders keep what they sold, pending invoices keep
 * their reserved serials), in the caller's transaction and at its time. Returns the stored image
 * names, for the caller to remove once the transaction has committed.
 */
export async function deleteProducts(
  tx: WriteContext,
  shopId: number,
  productIds: number[],
  now: number,
): Promise<string[]> {
  const images = await repo.productImages(tx.db, shopId, productIds);
  // The files of removed products can be deleted again; orders that bought them keep their downloads.
  const variantIds = (await repo.listVariants(tx.db, shopId, productIds)).map((v) => v.id);
  await repo.softDeleteProducts(tx.db, shopId, productIds, now);
  await repo.deleteImagesOfProducts(tx.db, shopId, productIds);
  await detachFiles(tx.db, shopId, variantIds);
  await domainEvents.emit(tx, 'products.deleted', { shopId, productIds, now });
  await syncListings(tx.db, shopId, now);
  return images;
}

/** The galleries of these products, each in its order, by product id (for the storefront). */
export async function galleriesByProduct(
  db: Conn,
  shopId: number,
  productIds: number[],
): Promise<Map<number, { name: string; alt: string }[]>> {
  const byProduct = new Map<number, { name: string; alt: string }[]>();
  for (const row of await repo.listProductImages(db, shopId, productIds)) {
    const list = byProduct.get(row.product_id) ?? [];
    list.push({ name: row.name, alt: row.alt });
    byProduct.set(row.product_id, list);
  }
  return byProduct;
}

export async function deleteProduct(
  ctx: Context,
  storage: FileStorage,
  shop: ShopRow,
  productId: number,
): Promise<void> {
  const images = await writeTransaction(ctx, async (tx) => {
    await lockShop(tx.db, shop.id);
    await requireProduct(tx.db, shop.id, productId);
    return deleteProducts(tx, shop.id, [productId], ctx.clock.now());
  });
  await removeFiles(storage, images);
}

/**
 * Replaces a product image: checks the product first (404 before reading any upload), stores
 * the new file, points the product at it, and removes the old file once that has committed.
 */
export async function setProductImage(
  ctx: Context,
  storage: FileStorage,
  shop: ShopRow,
  productId: number,
  column: 'thumbnail' | 'seo_image',
  receive: () => Promise<string>,
): Promise<string> {
  await requireProduct(ctx.db, shop.id, productId);
  return replaceStoredFile(storage, receive, (name) =>
    ctx.db.transaction().execute(async (trx) => {
      const product = await requireProduct(trx, shop.id, productId);
      await repo.updateProduct(trx, shop.id, productId, { [column]: name }, ctx.clock.now());
      return product[column];
    }),
  );
}

/** Removes stored files once the rows that pointed at them are gone. */
export async function removeFiles(storage: FileStorage, names: string[]): Promise<void> {
  await Promise.all(names.map((n) => storage.remove(n)));
}

/**
 * Re-expresses every price of the shop in a new currency (see rescaleMinorUnits): variant
 * prices, per-gateway overrides, and the products' lowest prices. Part of the currency change
 * transaction, on its handle and at its time.
 */
export async function rescalePrices(
  db: Conn,
  shopId: number,
  fromCurrency: string,
  toCurrency: string,
  now: number,
): Promise<void> {
  if (currencyDigits(fromCurrency) === currencyDigits(toCurrency)) return;
  const rescale = (minor: number) => rescaleMinorUnits(minor, fromCurrency, toCurrency);
  for (const variant of await repo.listAllVariants(db, shopId)) {
    const gateways = (JSON.parse(variant.gateways) as StoredGateway[]).map((g) => ({
      ...g,
      price: g.price === null ? null : rescale(g.price),
    }));
    await repo.updateVariant(
      db,
      shopId,
      variant.id,
      { price: rescale(variant.price), gateways: JSON.stringify(gateways) },
      now,
    );
  }
  await repo.refreshMinPrices(db, shopId, await repo.liveProductIds(db, shopId));
}

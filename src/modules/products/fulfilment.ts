import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { grantDownloads } from '../files/index.js';
import { generateLicenseKeys, issueLicenses } from '../licenses/index.js';
import {
  type DeliveryOptions,
  DynamicDeliveryError,
  type DynamicOrder,
  fetchDynamicDeliverable,
} from './dynamic-delivery.js';
import type { VariantRow } from './products.table.js';
import { changeAvailableSerials, findProduct, findVariant } from './repository.js';
import { FILE_DEFAULTS } from './schema.js';

const DAY_MS = 86_400_000;

/**
 * Fulfilment: the stock and serials an order takes, returns and delivers, and what each delivery
 * type hands the buyer (serials, a service text, a dynamic answer). The orders module decides
 * when (checkout, completion, expiry, replacement); these are the only writes of the catalog's
 * stock columns and serials an order makes. File downloads and licences are granted and issued
 * here too, through the files and licenses modules, in the same transaction.
 */
type Conn = Kysely<Database>;

/**
 * Reserves `quantity` available serials of a variant for an invoice and answers how many it
 * got (and takes them off the variant's `available_serials`). On PostgreSQL rows locked by a
 * concurrent checkout are skipped, never waited on or taken twice; SQLite runs one write
 * transaction at a time.
 */
async function reserveSerials(
  db: Conn,
  shopId: number,
  variantId: number,
  invoiceId: string,
  quantity: number,
): Promise<TakenUnits> {
  const candidates = db
    .selectFrom('serials')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('variant_id', '=', variantId)
    .where('status', '=', 'available')
    .orderBy('id')
    .limit(quantity)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked());
  const result = await db
    .updateTable('serials')
    .set({ status: 'reserved', invoice_id: invoiceId })
    .where('id', 'in', candidates)
    .where('status', '=', 'available')
    .executeTakeFirst();
  const reserved = Number(result.numUpdatedRows);
  const left = await changeAvailableSerials(db, shopId, variantId, -reserved);
  return { taken: reserved === quantity, left: left ?? 0 };
}

/** Marks a part's reserved serials delivered and answers their values, oldest first. */
async function deliverReservedSerials(
  db: Conn,
  shopId: number,
  variantId: number,
  invoiceId: string,
  now: number,
): Promise<string[]> {
  const rows = await db
    .updateTable('serials')
    .set({ status: 'delivered', delivered_at: now })
    .where('shop_id', '=', shopId)
    .where('variant_id', '=', variantId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'reserved')
    .returning(['id', 'value'])
    .execute();
  return rows.sort((a, b) => a.id - b.id).map((r) => r.value);
}

/** The sum of `amount` over rows, by `key`. */
function totalsBy<T>(rows: T[], key: (row: T) => number, amount: (row: T) => number): Map<number, number> {
  const totals = new Map<number, number>();
  for (const row of rows) totals.set(key(row), (totals.get(key(row)) ?? 0) + amount(row));
  return totals;
}

/**
 * Returns an unpaid order's stock: its reserved serials become available again (and count in
 * their variants' `available_serials`), its counted parts go back to their variants' `stock`.
 * Variants are changed in id order, as checkouts take them (orders' reserveStock): two transactions
 * never each hold a variant the other waits for.
 */
export async function returnOrderStock(
  db: Conn,
  shopId: number,
  invoiceId: string,
  parts: { product_type: string; variant_id: number; quantity: number }[],
): Promise<void> {
  const released = await db
    .updateTable('serials')
    .set({ status: 'available', invoice_id: null })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'reserved')
    .returning('variant_id')
    .execute();
  const serials = totalsBy(
    released,
    (r) => r.variant_id,
    () => 1,
  );
  const counted = totalsBy(
    parts.filter((p) => p.product_type !== 'serials'),
    (p) => p.variant_id,
    (p) => p.quantity,
  );
  for (const variantId of [...new Set([...serials.keys(), ...counted.keys()])].sort((a, b) => a - b)) {
    await changeAvailableSerials(db, shopId, variantId, serials.get(variantId) ?? 0);
    if (counted.has(variantId)) await returnStock(db, shopId, variantId, counted.get(variantId)!);
  }
}

/**
 * Takes `quantity` from a counted stock in one statement. When nothing was taken the stock is
 * either unlimited (null: always succeeds, and is never written, so never locked) or too small.
 */
async function takeStock(db: Conn, shopId: number, variantId: number, quantity: number): Promise<TakenUnits> {
  const taken = await db
    .updateTable('product_variants')
    .set({ stock: sql`stock - ${quantity}` })
    .where('shop_id', '=', shopId)
    .where('id', '=', variantId)
    .where('stock', '>=', quantity)
    .returning('stock')
    .executeTakeFirst();
  if (taken) return { taken: true, left: taken.stock };
  const variant = await db
    .selectFrom('product_variants')
    .select('stock')
    .where('shop_id', '=', shopId)
    .where('id', '=', variantId)
    .executeTakeFirstOrThrow();
  return variant.stock === null ? { taken: true, left: null } : { taken: false, left: variant.stock };
}

/** Whether all the units asked for were taken and, when they were, how many the variant has left (null: unlimited). */
export interface TakenUnits {
  taken: boolean;
  left: number | null;
}

/**
 * Takes `quantity` units of a variant for an invoice: serials are reserved to it, a counted stock
 * goes down, an unlimited one is untouched. A caller whose units were not all taken throws,
 * rolling back whatever was.
 */
export function takeUnits(
  db: Conn,
  shopId: number,
  variant: { id: number; product_type: string },
  invoiceId: string,
  quantity: number,
): Promise<TakenUnits> {
  return variant.product_type === 'serials'
    ? reserveSerials(db, shopId, variant.id, invoiceId, quantity)
    : takeStock(db, shopId, variant.id, quantity);
}

async function returnStock(db: Conn, shopId: number, variantId: number, quantity: number): Promise<void> {
  await db
    .updateTable('product_variants')
    .set({ stock: sql`stock + ${quantity}` })
    .where('shop_id', '=', shopId)
    .where('id', '=', variantId)
    .where('stock', 'is not', null)
    .execute();
}

/**
 * Counts a completed invoice's units sold on its products, one update per product in product-id
 * order: two completions naming the same products in different orders never hold one each.
 */
export async function addSoldCounts(
  db: Conn,
  shopId: number,
  parts: { product_id: number; quantity: number }[],
): Promise<void> {
  const sold = totalsBy(
    parts,
    (p) => p.product_id,
    (p) => p.quantity,
  );
  for (const [productId, quantity] of [...sold].sort(([a], [b]) => a - b)) {
    await db
      .updateTable('products')
      .set({ sold_count: sql`sold_count + ${quantity}` })
      .where('shop_id', '=', shopId)
      .where('id', '=', productId)
      .execute();
  }
}

/** The order a delivery is for: licences are issued to its buyer. */
export interface DeliveryOrder {
  invoiceId: string;
  /** Units delivered now: the part's quantity, or a replacement's. */
  quantity: number;
  customerId: number | null;
  email: string;
}

/**
 * What the units of a part deliver, in the order's transaction: its reserved serials (marked
 * delivered), the variant's service text, the dynamic answer asked for before the transaction
 * (dynamicDeliverable), or, for a file variant, the order's downloads (granted here, shown on the
 * order as links). A licensed variant also issues one licence per unit: each delivered serial is
 * one, other types deliver a key generated for each unit after what they deliver.
 */
export async function deliverUnits(
  db: Conn,
  shopId: number,
  part: { product_id: number; variant_id: number; product_type: string },
  order: DeliveryOrder,
  now: number,
  dynamicAnswer: string | undefined,
): Promise<string[]> {
  const type = part.product_type;
  if (type === 'serials') {
    const serials = await deliverReservedSerials(db, shopId, part.variant_id, order.invoiceId, now);
    const variant = await findVariant(db, shopId, part.variant_id);
    if (variant?.license_enabled === 1) await issue(db, shopId, part, variant, order, serials, now);
    return serials;
  }
  if (type === 'dynamic' && dynamicAnswer === undefined)
    throw new Error(`variant ${part.variant_id}: a dynamic part needs its answer`);
  const variant = await findVariant(db, shopId, part.variant_id);
  if (!variant) throw new Error(`variant ${part.variant_id} of shop ${shopId} vanished`);
  const items = type === 'service' ? [variant.service_text ?? ''] : type === 'dynamic' ? [dynamicAnswer!] : [];
  if (type === 'file')
    await grantDownloads(
      db,
      shopId,
      order.invoiceId,
      part.variant_id,
      {
        downloadLimit: variant.file_download_limit ?? FILE_DEFAULTS.downloadLimit,
        linkHours: variant.file_link_hours ?? FILE_DEFAULTS.linkHours,
      },
      now,
    );
  if (variant.license_enabled !== 1) return items;
  const keys = generateLicenseKeys(variant.license_key_pattern, order.quantity);
  await issue(db, shopId, part, variant, order, keys, now);
  return [...items, ...keys];
}

/** Licences for `keys`, on the variant's terms as they are at the sale. */
function issue(
  db: Conn,
  shopId: number,
  part: { product_id: number; variant_id: number },
  variant: VariantRow,
  order: DeliveryOrder,
  keys: string[],
  now: number,
): Promise<void> {
  const expiresAt =
    variant.license_valid_days !== null ? now + variant.license_valid_days * DAY_MS : variant.license_expires_at;
  return issueLicenses(
    db,
    shopId,
    {
      invoiceId: order.invoiceId,
      productId: part.product_id,
      variantId: part.variant_id,
      customerId: order.customerId,
      email: order.email,
      keys,
      activationLimit: variant.license_activation_limit,
      expiresAt,
    },
    now,
  );
}

/**
 * Moves the delivery of an order's serials to the time it happened, for imported or demo history
 * (the orders module's `backdateOrder` moves the order itself; see orders/history.service.ts). A
 * checkout delivers only "now".
 */
export async function backdateDeliveries(
  db: Conn,
  shopId: number,
  invoiceId: string,
  deliveredAt: number,
): Promise<void> {
  await db
    .updateTable('serials')
    .set({ delivered_at: deliveredAt })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'delivered')
    .execute();
}

/**
 * The seller's note a delivery of this variant carries to the buyer: the variant's customer note,
 * else its product's while the product is live; undefined when neither has one.
 */
export async function deliveryNote(
  db: Conn,
  shopId: number,
  part: { product_id: number; variant_id: number },
): Promise<string | undefined> {
  const variant = await findVariant(db, shopId, part.variant_id);
  return (
    variant?.customer_note?.trim() ||
    (await findProduct(db, shopId, part.product_id))?.customer_note?.trim() ||
    undefined
  );
}

/** What a dynamic variant delivers for this order, asked of the owner's URL outside any transaction. */
export async function dynamicDeliverable(db: Conn, order: DynamicOrder, delivery: DeliveryOptions): Promise<string> {
  const variant = await findVariant(db, order.shopId, order.variantId);
  if (!variant?.dynamic_url) throw new DynamicDeliveryError(`variant ${order.variantId} has no delivery URL`);
  return fetchDynamicDeliverable(variant.dynamic_url, order, delivery);
}

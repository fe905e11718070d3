import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ProductRow, VariantRow } from './products.table.js';

/**
 * What a buyer may reach and buy of a shop's catalog: the storefront's pages and the checkout
 * both start from these, so the rule is written once.
 */
type Conn = Kysely<Database>;

/**
 * Products a buyer may open or buy: live, neither private nor internal (unlisted ones included).
 * The one statement of that rule: the storefront's pages and the checkout both start from it.
 */
export function reachableProducts(db: Conn, shopId: number) {
  return db
    .selectFrom('products')
    .where('shop_id', '=', shopId)
    .where('deleted_at', 'is', null)
    .where('private', '=', 0)
    .where('is_internal', '=', 0);
}

/**
 * The products a buyer may buy (reachableProducts) and the variants (deleted ones included, for
 * the caller to refuse) of an order's parts, in two reads whatever the number of parts: the
 * checkout reads them once, inside its transaction.
 */
export async function findOrderedItems(
  db: Conn,
  shopId: number,
  productIds: number[],
  variantIds: number[],
): Promise<{ products: Map<number, ProductRow>; variants: Map<number, VariantRow> }> {
  const [products, variants] = await Promise.all([
    reachableProducts(db, shopId).selectAll().where('id', 'in', productIds).execute(),
    db.selectFrom('product_variants').selectAll().where('shop_id', '=', shopId).where('id', 'in', variantIds).execute(),
  ]);
  return { products: new Map(products.map((p) => [p.id, p])), variants: new Map(variants.map((v) => [v.id, v])) };
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { NotFoundError } from '../../http/errors.js';
import { categoryListings } from '../categories/index.js';
import { groupMembers } from '../groups/index.js';
import { listingsInOrder } from '../listings/index.js';
import type { ProductRow } from '../products/index.js';
import { galleriesByProduct, liveVariantsByProduct, variantStocksByProduct } from '../products/index.js';
import * as repo from './repository.js';
import type { PublicListing } from './schema.js';
import { type ListedProductView, type Storefront, toGroupHeader, toListedProduct, toPublicProduct } from './views.js';

/**
 * What the storefront shows of the catalog. Listings leave out private, internal and unlisted
 * products; a group shows only its listed products and disappears when none is left. A path
 * reaches any product that is neither private nor internal (unlisted ones included) or a group.
 */
type Conn = Kysely<Database>;

/** The live variants of these products, by product. */
async function variantsOf(db: Conn, shopId: number, products: ProductRow[]) {
  const byProduct = await liveVariantsByProduct(
    db,
    shopId,
    products.map((p) => p.id),
  );
  return (productId: number) => byProduct.get(productId) ?? [];
}

/** The listed ones among these products, by id, as listings show them. */
async function listedProductViews(
  db: Conn,
  store: Storefront,
  productIds: number[],
): Promise<Map<number, ListedProductView>> {
  const products = await repo.listedProductCards(db, store.shop.id, productIds);
  const stocks = await variantStocksByProduct(
    db,
    store.shop.id,
    products.map((p) => p.id),
  );
  return new Map(products.map((p) => [p.id, toListedProduct(store, p, stocks.get(p.id) ?? [])]));
}

/** The shop's listings in storefront order (position, then id), with what each shows. */
export async function publicListings(db: Conn, store: Storefront) {
  const shopId = store.shop.id;
  const rows = await listingsInOrder(db, shopId);
  const groupIds = rows.flatMap((l) => (l.type === 'group' && l.group_id !== null ? [l.group_id] : []));
  const [groups, members] = await Promise.all([
    repo.groupsByIds(db, shopId, groupIds),
    groupMembers(db, shopId, groupIds),
  ]);
  const productIds = new Set(
    rows.flatMap((l) => (l.type === 'product' && l.product_id !== null ? [l.product_id] : [])),
  );
  for (const ids of members.values()) for (const id of ids) productIds.add(id);
  const products = await listedProductViews(db, store, [...productIds]);
  const groupById = new Map(groups.map((g) => [g.id, g]));

  return rows.flatMap((l): PublicListing[] => {
    if (l.type === 'product') {
      const product = products.get(l.product_id!);
      return product
        ? [{ id: l.id, type: l.type, path: product.path, position: l.position, product, group: null }]
        : [];
    }
    const group = groupById.get(l.group_id!);
    const shown = (members.get(l.group_id!) ?? []).flatMap((id) => products.get(id) ?? []);
    if (!group || shown.length === 0) return [];
    return [
      {
        id: l.id,
        type: l.type,
        path: group.path,
        position: l.position,
        product: null,
        group: { ...toGroupHeader(group), products: shown },
      },
    ];
  });
}

/** Categories in creation order, each with only the listings these pages show. */
export async function publicCategories(db: Conn, shopId: number, shownListingIds: Set<number>) {
  const categories = await repo.listCategories(db, shopId);
  const listingIds = await categoryListings(
    db,
    shopId,
    categories.map((c) => c.id),
  );
  return categories.map((c) => ({
    id: c.id,
    name: c.name,
    listingIds: (listingIds.get(c.id) ?? []).filter((id) => shownListingIds.has(id)),
  }));
}

/** Full public views (variants, prices per gateway, custom fields) of these products, in this order. */
async function publicProducts(db: Conn, store: Storefront, products: ProductRow[]) {
  const [variants, galleries] = await Promise.all([
    variantsOf(db, store.shop.id, products),
    galleriesByProduct(
      db,
      store.shop.id,
      products.map((p) => p.id),
    ),
  ]);
  return products.map((p) => toPublicProduct(store, p, variants(p.id), galleries.get(p.id) ?? []));
}

/**
 * The product or group at this path, with the ids of the products whose feedbacks belong to
 * it. Private and internal products, and groups with no listed product, are a 404 like an
 * unknown path.
 */
export async function listingAtPath(db: Conn, store: Storefront, path: string) {
  const shopId = store.shop.id;
  const product = await repo.findReachableProductByPath(db, shopId, path);
  if (product) {
    const [view] = await publicProducts(db, store, [product]);
    const id = await repo.listingIdOf(db, shopId, { productId: product.id });
    return {
      listing: { id, type: 'product' as const, path: product.path, product: view!, group: null },
      productIds: [product.id],
    };
  }
  const group = await repo.findGroupByPath(db, shopId, path);
  if (!group) throw new NotFoundError('Listing');
  const memberIds = (await groupMembers(db, shopId, [group.id])).get(group.id) ?? [];
  const found = new Map((await repo.listedProducts(db, shopId, memberIds)).map((p) => [p.id, p]));
  const members = memberIds.flatMap((id) => found.get(id) ?? []);
  if (members.length === 0) throw new NotFoundError('Listing');
  const id = await repo.listingIdOf(db, shopId, { groupId: group.id });
  const products = await publicProducts(db, store, members);
  return {
    listing: {
      id,
      type: 'group' as const,
      path: group.path,
      product: null,
      group: { ...toGroupHeader(group), products },
    },
    productIds: members.map((p) => p.id),
  };
}

/** The full public view of a product a buyer may order (reachable by path or id); undefined otherwise. */
/** Of these ids, the products a buyer can reach, as the checkout page shows them (a cart's lines). */
export async function reachableProducts(db: Conn, store: Storefront, productIds: number[]) {
  return publicProducts(db, store, await repo.findReachableProductsByIds(db, store.shop.id, productIds));
}

export async function reachableProduct(db: Conn, store: Storefront, productId: number) {
  const product = await repo.findReachableProductById(db, store.shop.id, productId);
  if (!product) return undefined;
  const [view] = await publicProducts(db, store, [product]);
  return view;
}

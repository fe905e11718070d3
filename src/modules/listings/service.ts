import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { slugify } from '../../http/slug.js';
import type { PageQuery } from '../../schemas/common.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import * as repo from './repository.js';
import type { PositionsBody } from './schema.js';
import { toListing } from './views.js';

type Conn = Kysely<Database>;

/**
 * Brings the shop's listings in line with its catalog: one listing per live product that is in
 * no group, one per group. Listings that still fit keep their id and position; new ones go to
 * the end. Call it inside the transaction that changed products or groups, with that change's time.
 */
export async function syncListings(db: Conn, shopId: number, now: number): Promise<void> {
  const [existing, productIds, groupIds] = await Promise.all([
    repo.listListingRows(db, shopId),
    repo.ungroupedProductIds(db, shopId),
    repo.groupIds(db, shopId),
  ]);
  const wantedProducts = new Set(productIds);
  const wantedGroups = new Set(groupIds);
  const stale = existing.filter((l) =>
    l.type === 'product' ? !wantedProducts.has(l.product_id!) : !wantedGroups.has(l.group_id!),
  );
  await repo.deleteListings(
    db,
    shopId,
    stale.map((l) => l.id),
  );
  for (const l of existing)
    (l.type === 'product' ? wantedProducts : wantedGroups).delete((l.type === 'product' ? l.product_id : l.group_id)!);
  let next = existing.reduce((max, l) => Math.max(max, l.position + 1), 0);
  const added = [
    ...[...wantedProducts].map((targetId) => ({ type: 'product' as const, targetId })),
    ...[...wantedGroups].map((targetId) => ({ type: 'group' as const, targetId })),
  ].map((l) => ({ ...l, position: next++ }));
  await repo.insertListings(db, shopId, added, now);
}

/**
 * A listing path for a product or group: the given one (409 when another product or group of
 * the shop has it) or one derived from the title, made unique with a numeric suffix.
 */
export async function claimListingPath(
  db: Conn,
  shopId: number,
  input: { path?: string | undefined; title: string; field: string },
  except: { productId?: number; groupId?: number } = {},
): Promise<string> {
  if (input.path !== undefined) {
    if (await repo.listingPathTaken(db, shopId, input.path, except)) {
      throw new ConflictError('This path is already used by another product or group.', [
        `${input.field}: is already taken`,
      ]);
    }
    return input.path;
  }
  const base = slugify(input.title, 90) || 'item';
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await repo.listingPathTaken(db, shopId, candidate, except))) return candidate;
  }
}

/**
 * What each listing shows (a product or a group) and where, in storefront order: position, then
 * id. The storefront builds its pages on it and applies its own visibility rules.
 */
export function listingsInOrder(db: Conn, shopId: number) {
  return repo.listListingRows(db, shopId);
}

/**
 * 400 naming every `<field>[i]` that is not a listing of this shop (a category's listings; the
 * schema refuses repeats). `db` is the caller's transaction, which holds the shop lock: listings
 * come and go with product and group writes, which hold it too.
 */
export async function checkListingIds(db: Conn, shopId: number, listingIds: number[], field: string): Promise<void> {
  if (listingIds.length === 0) return;
  const found = await repo.existingListingIds(db, shopId, listingIds);
  const problems = listingIds.flatMap((id, i) =>
    found.has(id) ? [] : [`${field}[${i}]: is not a listing of this shop`],
  );
  if (problems.length > 0) throw new ValidationError(problems);
}

/** A page of the shop's listings in storefront order: position, then id. */
export async function listListings(ctx: Context, shop: ShopRow, query: PageQuery) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  const [rows, totalCount] = await Promise.all([
    repo.listListings(db, shop.id, { search: query.searchString, limit, offset }),
    repo.countListings(db, shop.id, query.searchString),
  ]);
  return toPage(
    rows.map((l) => toListing(l, shop.currency)),
    totalCount,
    query,
  );
}

/** Every listing of the shop in storefront order. */
export async function allListings(db: Conn, shop: ShopRow) {
  return (await repo.listListings(db, shop.id)).map((l) => toListing(l, shop.currency));
}

/**
 * Moves listings to new positions, all or nothing: a repeated id is a 400 and an id that is not
 * a listing of this shop a 404, and either changes nothing. Listings left out keep their position.
 */
export async function setListingPositions(ctx: Context, shop: ShopRow, body: PositionsBody) {
  const seen = new Set<number>();
  const repeated: string[] = [];
  body.listings.forEach((l, i) => {
    if (seen.has(l.listingId)) repeated.push(`listings[${i}].listingId: appears twice`);
    seen.add(l.listingId);
  });
  if (repeated.length > 0) throw new ValidationError(repeated);
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const found = await repo.existingListingIds(trx, shop.id, [...seen]);
    const missing = body.listings.flatMap((l, i) =>
      found.has(l.listingId) ? [] : [`listings[${i}].listingId: no listing ${l.listingId} in this shop`],
    );
    if (missing.length > 0) throw new NotFoundError('Listing', missing);
    await repo.setListingPositions(trx, shop.id, body.listings);
    return allListings(trx, shop);
  });
}

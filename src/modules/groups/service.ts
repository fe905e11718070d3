import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type Context, onConnection } from '../../domain/context.js';
import { NotFoundError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import type { PageQuery } from '../../schemas/common.js';
import { type FileStorage, replaceStoredFile } from '../../storage/file-storage.js';
import { claimListingPath, syncListings } from '../listings/index.js';
import { checkProductIds } from '../products/index.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import type { GroupRow } from './groups.table.js';
import * as repo from './repository.js';
import type { GroupInput } from './schema.js';
import { toGroup } from './views.js';

type Conn = Kysely<Database>;

/** Column values of a full write: omitted optional fields take their defaults. */
function groupColumns(input: GroupInput) {
  return {
    title: input.title.trim(),
    description:
      input.description === undefined || input.description === null || input.description.trim() === ''
        ? null
        : input.description,
    priority: input.priority ?? 0,
    type: input.type ?? 'list',
    main: input.main ? 1 : 0,
  };
}

async function requireGroup(db: Conn, shopId: number, groupId: number): Promise<GroupRow> {
  const group = await repo.findGroup(db, shopId, groupId);
  if (!group) throw new NotFoundError('Group');
  return group;
}

/** The product ids of each of these groups, in the group's order: what the storefront shows of each. */
export function groupMembers(db: Conn, shopId: number, groupIds: number[]): Promise<Map<number, number[]>> {
  return repo.productIdsOfGroups(db, shopId, groupIds);
}

export async function getGroup(ctx: Context, shop: ShopRow, groupId: number) {
  const { db } = ctx;
  const group = await requireGroup(db, shop.id, groupId);
  const productIds = await repo.productIdsOfGroups(db, shop.id, [groupId]);
  return toGroup(group, productIds.get(groupId) ?? []);
}

export async function listGroups(ctx: Context, shop: ShopRow, query: PageQuery) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  const [rows, totalCount] = await Promise.all([
    repo.listGroups(db, shop.id, { search: query.searchString, limit, offset }),
    repo.countGroups(db, shop.id, query.searchString),
  ]);
  const productIds = await repo.productIdsOfGroups(
    db,
    shop.id,
    rows.map((g) => g.id),
  );
  return toPage(
    rows.map((g) => toGroup(g, productIds.get(g.id) ?? [])),
    totalCount,
    query,
  );
}

/** Creates the group and gives it a listing; its products lose their own listings. */
export async function createGroup(ctx: Context, shop: ShopRow, input: GroupInput) {
  const columns = groupColumns(input);
  const productIds = input.productIds ?? [];
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    await checkProductIds(trx, shop.id, productIds, 'productIds');
    const path = await claimListingPath(trx, shop.id, {
      path: input.path ?? undefined,
      title: columns.title,
      field: 'path',
    });
    const now = ctx.clock.now();
    const group = await repo.insertGroup(trx, { ...columns, shop_id: shop.id, path, created_at: now, updated_at: now });
    await repo.replaceGroupProducts(trx, shop.id, group.id, productIds);
    await syncListings(trx, shop.id, now);
    return getGroup(onConnection(ctx, trx), shop, group.id);
  });
}

/**
 * Full update: every field is replaced (omitted optional ones take their defaults), except an
 * omitted `path`, which keeps the current one. Products that leave their last group get their
 * own listing back, at the end.
 */
export async function updateGroup(ctx: Context, shop: ShopRow, groupId: number, input: GroupInput) {
  const columns = groupColumns(input);
  const productIds = input.productIds ?? [];
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const group = await requireGroup(trx, shop.id, groupId);
    await checkProductIds(trx, shop.id, productIds, 'productIds');
    const path =
      input.path == null
        ? group.path
        : await claimListingPath(trx, shop.id, { path: input.path, title: columns.title, field: 'path' }, { groupId });
    const now = ctx.clock.now();
    await repo.updateGroup(trx, shop.id, groupId, { ...columns, path }, now);
    await repo.replaceGroupProducts(trx, shop.id, groupId, productIds);
    await syncListings(trx, shop.id, now);
    return getGroup(onConnection(ctx, trx), shop, groupId);
  });
}

/** Deletes the group and its listing; its products get their own listings back. The thumbnail file goes after commit. */
export async function deleteGroup(ctx: Context, storage: FileStorage, shop: ShopRow, groupId: number) {
  const thumbnail = await ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const group = await requireGroup(trx, shop.id, groupId);
    await repo.deleteGroup(trx, shop.id, groupId);
    await syncListings(trx, shop.id, ctx.clock.now());
    return group.thumbnail;
  });
  await storage.remove(thumbnail);
  return { id: groupId, deleted: true as const };
}

/**
 * Replaces the thumbnail: checks the group first (404 before reading any upload), stores the
 * new file, points the group at it, and removes the old file once that has committed.
 */
export async function setGroupThumbnail(
  ctx: Context,
  storage: FileStorage,
  shop: ShopRow,
  groupId: number,
  receive: () => Promise<string>,
): Promise<string> {
  await requireGroup(ctx.db, shop.id, groupId);
  return replaceStoredFile(storage, receive, (name) =>
    ctx.db.transaction().execute(async (trx) => {
      const group = await requireGroup(trx, shop.id, groupId);
      await repo.updateGroup(trx, shop.id, groupId, { thumbnail: name }, ctx.clock.now());
      return group.thumbnail;
    }),
  );
}

import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import type { GroupRow, ProductGroupsTable } from './groups.table.js';

type Conn = Kysely<Database>;
type GroupPatch = Omit<Updateable<ProductGroupsTable>, 'id' | 'shop_id' | 'created_at'>;

export function findGroup(db: Conn, shopId: number, groupId: number): Promise<GroupRow | undefined> {
  return db
    .selectFrom('product_groups')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', groupId)
    .executeTakeFirst();
}

export function insertGroup(db: Conn, row: Insertable<ProductGroupsTable>): Promise<GroupRow> {
  return db.insertInto('product_groups').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateGroup(
  db: Conn,
  shopId: number,
  groupId: number,
  patch: GroupPatch,
  now: number,
): Promise<void> {
  await db
    .updateTable('product_groups')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', groupId)
    .execute();
}

/** Deletes the group with its memberships; its listing (and that listing's category places) cascade. */
export async function deleteGroup(db: Conn, shopId: number, groupId: number): Promise<void> {
  await db.deleteFrom('group_products').where('shop_id', '=', shopId).where('group_id', '=', groupId).execute();
  await db.deleteFrom('product_groups').where('shop_id', '=', shopId).where('id', '=', groupId).execute();
}

/** One page of the shop's groups, newest first. */
export function listGroups(
  db: Conn,
  shopId: number,
  options: { search?: string | undefined; limit: number; offset: number },
): Promise<GroupRow[]> {
  let query = db.selectFrom('product_groups').selectAll().where('shop_id', '=', shopId);
  if (options.search) query = query.where(containsText('title', options.search));
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
}

export async function countGroups(db: Conn, shopId: number, search?: string): Promise<number> {
  let query = db
    .selectFrom('product_groups')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId);
  if (search) query = query.where(containsText('title', search));
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** The product ids of each group, in the group's order. */
export async function productIdsOfGroups(db: Conn, shopId: number, groupIds: number[]): Promise<Map<number, number[]>> {
  const byGroup = new Map<number, number[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return byGroup;
  const rows = await db
    .selectFrom('group_products')
    .select(['group_id', 'product_id'])
    .where('shop_id', '=', shopId)
    .where('group_id', 'in', groupIds)
    .orderBy('group_id')
    .orderBy('position')
    .execute();
  for (const r of rows) byGroup.get(r.group_id)?.push(r.product_id);
  return byGroup;
}

/** Takes these products out of every group of the shop (they were deleted); the others keep their positions. */
export async function removeFromGroups(db: Conn, shopId: number, productIds: number[]): Promise<void> {
  await db.deleteFrom('group_products').where('shop_id', '=', shopId).where('product_id', 'in', productIds).execute();
}

/** Makes the group's products exactly these, in this order. */
export async function replaceGroupProducts(
  db: Conn,
  shopId: number,
  groupId: number,
  productIds: number[],
): Promise<void> {
  await db.deleteFrom('group_products').where('shop_id', '=', shopId).where('group_id', '=', groupId).execute();
  if (productIds.length === 0) return;
  await db
    .insertInto('group_products')
    .values(
      productIds.map((productId, position) => ({
        shop_id: shopId,
        group_id: groupId,
        product_id: productId,
        position,
      })),
    )
    .execute();
}

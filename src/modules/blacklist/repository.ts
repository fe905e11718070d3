import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import type { BlacklistTable, BlockedItemRow, BlockedItemType } from './blacklist.table.js';

type Conn = Kysely<Database>;

export function findBlockedItem(db: Conn, shopId: number, blockedItemId: number): Promise<BlockedItemRow | undefined> {
  return db
    .selectFrom('blacklist')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', blockedItemId)
    .executeTakeFirst();
}

/** The oldest item of this type with exactly this (normalised) data. */
export function findBlockedData(
  db: Conn,
  shopId: number,
  type: BlockedItemType,
  data: string,
): Promise<BlockedItemRow | undefined> {
  return db
    .selectFrom('blacklist')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('type', '=', type)
    .where('data', '=', data)
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * The items that could match a buyer, in one read: the `email` item with this key, every `ip`
 * item (ranges are matched by the caller) and the `country` item with this key (when there is one).
 */
export function listBuyerCandidates(
  db: Conn,
  shopId: number,
  email: string,
  country: string | null,
): Promise<BlockedItemRow[]> {
  return db
    .selectFrom('blacklist')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where((eb) =>
      eb.or([
        eb.and([eb('type', '=', 'email'), eb('data', '=', email)]),
        eb('type', '=', 'ip'),
        ...(country === null ? [] : [eb.and([eb('type', '=', 'country'), eb('data', '=', country)])]),
      ]),
    )
    .orderBy('id')
    .execute();
}

export function insertBlockedItem(db: Conn, row: Insertable<BlacklistTable>): Promise<BlockedItemRow> {
  return db.insertInto('blacklist').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateBlockedItem(
  db: Conn,
  shopId: number,
  blockedItemId: number,
  patch: { type: BlockedItemType; data: string; note: string | null },
  now: number,
): Promise<BlockedItemRow> {
  return db
    .updateTable('blacklist')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', blockedItemId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteBlockedItem(db: Conn, shopId: number, blockedItemId: number): Promise<number> {
  const result = await db
    .deleteFrom('blacklist')
    .where('shop_id', '=', shopId)
    .where('id', '=', blockedItemId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

interface ListFilter {
  search?: string | undefined;
  type?: BlockedItemType | undefined;
}

function filtered(db: Conn, shopId: number, filter: ListFilter) {
  let query = db.selectFrom('blacklist').where('shop_id', '=', shopId);
  if (filter.type) query = query.where('type', '=', filter.type);
  const search = filter.search;
  if (search) query = query.where((eb) => eb.or([containsText('data', search), containsText('note', search)]));
  return query;
}

/** One page of the shop's blocked items, newest first. */
export function listBlockedItems(
  db: Conn,
  shopId: number,
  options: ListFilter & { limit: number; offset: number },
): Promise<BlockedItemRow[]> {
  return filtered(db, shopId, options)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
}

export async function countBlockedItems(db: Conn, shopId: number, filter: ListFilter): Promise<number> {
  const row = await filtered(db, shopId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

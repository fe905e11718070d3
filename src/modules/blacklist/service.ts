import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import type { BlockedItemRow } from './blacklist.table.js';
import { buyerCountryKey, buyerEmailKey, ipDataCovers, normaliseBlockedData, parseBuyerIp } from './blocked-data.js';
import * as repo from './repository.js';
import type { BlacklistQuery, BlockedItemInput } from './schema.js';
import { toBlockedItem } from './views.js';

type Conn = Kysely<Database>;

async function requireBlockedItem(db: Conn, shopId: number, blockedItemId: number): Promise<BlockedItemRow> {
  const item = await repo.findBlockedItem(db, shopId, blockedItemId);
  if (!item) throw new NotFoundError('Blocked item');
  return item;
}

/** 409 when another item of the shop already blocks the same type and data. */
async function checkNotBlocked(
  db: Conn,
  shopId: number,
  type: BlockedItemRow['type'],
  data: string,
  blockedItemId?: number,
): Promise<void> {
  const holder = await repo.findBlockedData(db, shopId, type, data);
  if (holder && holder.id !== blockedItemId) {
    throw new ConflictError(`This ${type} is already blocked.`, [
      `data: is already blocked (blocked item ${holder.id})`,
    ]);
  }
}

export async function getBlockedItem(ctx: Context, shop: ShopRow, blockedItemId: number) {
  return toBlockedItem(await requireBlockedItem(ctx.db, shop.id, blockedItemId));
}

export async function listBlockedItems(ctx: Context, shop: ShopRow, query: BlacklistQuery) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  const filter = { search: query.searchString, type: query.type };
  const [rows, totalCount] = await Promise.all([
    repo.listBlockedItems(db, shop.id, { ...filter, limit, offset }),
    repo.countBlockedItems(db, shop.id, filter),
  ]);
  return toPage(rows.map(toBlockedItem), totalCount, query);
}

export async function createBlockedItem(ctx: Context, shop: ShopRow, input: BlockedItemInput) {
  const data = normaliseBlockedData(input.type, input.data);
  const item = await ctx.db.transaction().execute(async (trx) => {
    // No unique index on (shop, type, data): the shop lock makes check-then-insert safe.
    await lockShop(trx, shop.id);
    await checkNotBlocked(trx, shop.id, input.type, data);
    const now = ctx.clock.now();
    return repo.insertBlockedItem(trx, {
      shop_id: shop.id,
      type: input.type,
      data,
      note: input.note ?? null,
      created_at: now,
      updated_at: now,
    });
  });
  return toBlockedItem(item);
}

/** Full update: `type` and `data` are replaced, an omitted `note` clears it. */
export async function updateBlockedItem(ctx: Context, shop: ShopRow, blockedItemId: number, input: BlockedItemInput) {
  const data = normaliseBlockedData(input.type, input.data);
  const item = await ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    await requireBlockedItem(trx, shop.id, blockedItemId);
    await checkNotBlocked(trx, shop.id, input.type, data, blockedItemId);
    const patch = { type: input.type, data, note: input.note ?? null };
    return repo.updateBlockedItem(trx, shop.id, blockedItemId, patch, ctx.clock.now());
  });
  return toBlockedItem(item);
}

/**
 * Blocks a buyer's e-mail and IP (a dispute, when the shop chose so), inside the caller's
 * transaction `db`, which must hold the shop lock exclusively (`lockShop`: check-then-insert).
 * What is already blocked, or is no valid IP, is left as it is.
 */
export async function blockBuyer(
  db: Conn,
  shopId: number,
  buyer: { email: string; ip: string | null },
  note: string,
  now: number,
): Promise<void> {
  const items: { type: 'email' | 'ip'; data: string }[] = [];
  try {
    items.push({ type: 'email', data: normaliseBlockedData('email', buyer.email) });
  } catch {
    // Not an e-mail address the blacklist takes: nothing to block by it.
  }
  if (buyer.ip !== null && parseBuyerIp(buyer.ip))
    try {
      items.push({ type: 'ip', data: normaliseBlockedData('ip', buyer.ip) });
    } catch {
      // Not an address the blacklist takes.
    }
  for (const item of items) {
    if (await repo.findBlockedData(db, shopId, item.type, item.data)) continue;
    await repo.insertBlockedItem(db, { shop_id: shopId, ...item, note, created_at: now, updated_at: now });
  }
}

export async function deleteBlockedItem(ctx: Context, shop: ShopRow, blockedItemId: number) {
  if ((await repo.deleteBlockedItem(ctx.db, shop.id, blockedItemId)) === 0) throw new NotFoundError('Blocked item');
  return { id: blockedItemId, deleted: true as const };
}

/**
 * The first blocked item matching the buyer, or undefined. email: case-insensitive equality;
 * ip: equal address or inside a CIDR range (IPv4-mapped IPv6 like ::ffff:1.2.3.4 counts as
 * 1.2.3.4); country: equality (upper-case). Checked in that order, the oldest item first
 * within a type; an IP or country that is not one (empty, `XX`, garbage) matches nothing.
 */
export async function findBlock(
  db: Conn,
  shopId: number,
  buyer: { email: string; ip: string | null; country: string | null },
): Promise<BlockedItemRow | undefined> {
  const country = buyerCountryKey(buyer.country);
  const items = await repo.listBuyerCandidates(db, shopId, buyerEmailKey(buyer.email), country);
  const byEmail = items.find((item) => item.type === 'email');
  if (byEmail) return byEmail;
  const ip = parseBuyerIp(buyer.ip);
  const byIp = ip ? items.find((item) => item.type === 'ip' && ipDataCovers(item.data, ip)) : undefined;
  return byIp ?? items.find((item) => item.type === 'country');
}

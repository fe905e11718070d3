import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { NotFoundError } from '../../http/errors.js';
import { allShopIds } from '../shops/index.js';
import { rebuildRollups } from './rollups.js';

/**
 * `shopd rollups rebuild [--shop N]`: recomputes the dashboards' rollups of one shop or of every
 * shop from its raw rows (invoices, customers, feedbacks, replacements), in the shop's timezone.
 * Each shop's rebuild runs in short transactions (rollups.ts), so the server may keep running.
 */
export async function rebuildRollupsCommand(
  db: Kysely<Database>,
  shopId: number | undefined,
  print: (line: string) => void,
): Promise<void> {
  const shops = await allShopIds(db);
  if (shopId !== undefined && !shops.includes(shopId)) throw new NotFoundError('Shop');
  for (const id of shopId === undefined ? shops : [shopId]) {
    await rebuildRollups(db, id);
    print(`shop ${id}: rollups rebuilt`);
  }
}

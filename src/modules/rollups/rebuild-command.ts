import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { NotFoundError } from '../../http/errors.js';
import { allShopIds } from '../shops/index.js';
import { rebuildRollups } from './rollups.js';

/**
 * `shopd rollups rebuild [--shop N]`: recomputes the dashboards' rollups of one shop or of every
 * shop from its raw rows (invoices, customers, feedbacks, replacements), in the shop's timezone.
 * Each shop's rebuild runs in short transactions (rollups.ts), so the server may keep running.
 * `deriveFirst` runs first for each shop: the composition root gives the orders module's
 * derivation of the repeat-purchase flags that rows inserted in bulk lack (the rollups count
 * them, but cannot call the orders module, which builds on them).
 */
export async function rebuildRollupsCommand(
  db: Kysely<Database>,
  shopId: number | undefined,
  print: (line: string) => void,
  deriveFirst: (shopId: number) => Promise<void>,
): Promise<void> {
  const shops = await allShopIds(db);
  if (shopId !== undefined && !shops.includes(shopId)) throw new NotFoundError('Shop');
  for (const id of shopId === undefined ? shops : [shopId]) {
    await deriveFirst(id);
    await rebuildRollups(db, id);
    print(`shop ${id}: rollups rebuilt`);
  }
}

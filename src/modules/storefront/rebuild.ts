import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { countBuyers } from '../customers/index.js';
import { recountAvailableSerials } from '../products/index.js';
import { rebuildFeedbackIndex, rebuildShopTotals } from './repository.js';

/**
 * Recomputes, in one transaction, what the storefront shows that its writers keep as they go —
 * the shop's totals (buyers, feedbacks, ratings), its feedback index and its serial stock counts —
 * from the rows themselves: for data written in bulk past the services (the benchmark's seeder, an
 * import). The buyers are counted by the customers module and the serial stock (a column of the
 * products module's variants) recounted by the products module, through their doors.
 */
export async function rebuildStorefrontTotals(db: Kysely<Database>, shopId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await rebuildShopTotals(trx, shopId, await countBuyers(trx, shopId));
    await rebuildFeedbackIndex(trx, shopId);
    await recountAvailableSerials(trx, shopId);
  });
}

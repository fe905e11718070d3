import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import * as repo from './history.repository.js';

/**
 * Order history written after the fact, for importing orders and for the demo shop (`shopd seed
 * --demo`). Checkout places an order only "now", so an importer places orders through the real
 * operations and then moves each to the time it happened (`backdateOrder`); the other modules
 * have their part of it (the products module's `backdateDeliveries`, the feedbacks module's
 * `backdateFeedback`, the customers module's `backdateCustomers`, fed by `customerOrderDates`).
 * None of these keeps what is derived from the times: once the history is in place, the importer
 * derives the repeat-purchase flags again (`deriveRepeatPurchases(…, 'all')`) and rebuilds the
 * dashboards' rollups and the storefront's totals (`rebuildRollups`, `rebuildStorefrontTotals`).
 * No request reaches these.
 */

type Conn = Kysely<Database>;

/**
 * Moves an order to the times it happened: the invoice's creation (and its parts'), completion
 * (null: not completed), expiry when given, and its replacements' time when given (the moment of
 * delivery moves with the products module's `backdateDeliveries`).
 */
export function backdateOrder(db: Conn, shopId: number, invoiceId: string, times: repo.OrderTimes): Promise<void> {
  return repo.moveOrderInTime(db, shopId, invoiceId, times);
}

/**
 * For each customer of the shop who ordered: the creation of their first order and their latest
 * completion (null when none completed), from the history as it stands (after `backdateOrder`): the
 * dates the customers module's `backdateCustomers` gives them.
 */
export function customerOrderDates(db: Conn, shopId: number): Promise<repo.CustomerOrderDates[]> {
  return repo.customerOrderDates(db, shopId);
}

/**
 * Derives the repeat-purchase flags of the shop's completed invoices from its order history:
 * every completed invoice of a customer but the first (by completion time, then id) is a repeat.
 * A completion decides its own flag as it happens (under the customer's row lock, see
 * `completeInvoice`); this is for the rows that did not go through one. `'missing'` sets only the
 * flags of completed invoices that have none (rows inserted in bulk, as the benchmark's seeder or
 * an import writes them), before `shopd rollups rebuild` counts them; `'all'` derives every flag
 * again, for a history whose times were moved (`backdateOrder`), where the order of completions
 * is no longer the one the flags were decided in.
 */
export async function deriveRepeatPurchases(
  db: Conn,
  shopId: number,
  which: 'missing' | 'all' = 'missing',
): Promise<void> {
  if (which === 'missing' && !(await repo.hasUnflaggedCompletions(db, shopId))) return;
  await repo.setRepeatPurchasesFromHistory(db, shopId, which === 'missing');
}

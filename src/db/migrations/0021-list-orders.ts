import type { Kysely } from 'kysely';

/**
 * The owner's invoice and customer lists sort by more than the creation date (`orderBy`): by the
 * invoice total and the customer balance, each way, the id breaking ties. Each index matches one
 * order's `(shop_id, sort column, id)`, so a page (a keyset cursor's `(column, id) > (value, id)`
 * included) is one index range read in either direction, as the creation-date indexes of 0003
 * give the default order; without them a page sorts every row of the shop. Filters (status,
 * gateway, dates) are checked on the rows the range yields.
 *
 * The e-mail order needs none: the unique (shop_id, email) of 0003 gives it, e-mails being unique
 * per shop (SQLite reads it as the whole order, PostgreSQL as a presorted key whose groups are
 * one row each).
 */
const ORDER_INDEXES = {
  invoices_shop_total_idx: { table: 'invoices', columns: ['shop_id', 'total', 'id'] },
  customers_shop_balance_idx: { table: 'customers', columns: ['shop_id', 'balance', 'id'] },
};

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, { table, columns }] of Object.entries(ORDER_INDEXES))
    await db.schema.createIndex(name).on(table).columns(columns).execute();
}

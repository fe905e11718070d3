import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DisputeRow, DisputesTable, InvoiceViewsTable } from './disputes.table.js';

type Conn = Kysely<Database>;

export function findDisputeByProviderId(
  db: Conn,
  provider: string,
  providerDisputeId: string,
): Promise<DisputeRow | undefined> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_dispute_id', '=', providerDisputeId)
    .executeTakeFirst();
}

export function findDispute(db: Conn, shopId: number, disputeId: number): Promise<DisputeRow | undefined> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', disputeId)
    .executeTakeFirst();
}

export function latestDisputeOfInvoices(db: Conn, shopId: number, invoiceIds: string[]): Promise<DisputeRow[]> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
}

export function listDisputes(db: Conn, shopId: number, limit: number, offset: number): Promise<DisputeRow[]> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('shop_id', '=', shopId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countDisputes(db: Conn, shopId: number): Promise<number> {
  const row = await db
    .selectFrom('disputes')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('shop_id', '=', shopId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertDispute(db: Conn, row: Insertable<DisputesTable>): Promise<DisputeRow> {
  return db.insertInto('disputes').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateDispute(
  db: Conn,
  shopId: number,
  disputeId: number,
  patch: Partial<
    Pick<
      DisputeRow,
      'status' | 'reason' | 'amount' | 'currency' | 'updated_at' | 'evidence' | 'evidence_submitted_at' | 'submit_error'
    >
  >,
): Promise<void> {
  await db.updateTable('disputes').set(patch).where('shop_id', '=', shopId).where('id', '=', disputeId).execute();
}

export async function insertInvoiceView(db: Conn, row: Insertable<InvoiceViewsTable>): Promise<void> {
  await db.insertInto('invoice_views').values(row).execute();
}

export function viewsOfInvoice(db: Conn, shopId: number, invoiceId: string) {
  return db
    .selectFrom('invoice_views')
    .select(['at', 'ip', 'user_agent'])
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .orderBy('at')
    .orderBy('id')
    .limit(1000)
    .execute();
}

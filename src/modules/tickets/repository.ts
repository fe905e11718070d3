import type { Insertable, Kysely } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type { TicketMessageRow, TicketMessagesTable, TicketRow, TicketStatus, TicketsTable } from './tickets.table.js';

type Conn = Kysely<Database>;

export function findTicket(db: Conn, shopId: number, ticketId: number): Promise<TicketRow | undefined> {
  return db
    .selectFrom('tickets')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
}

/**
 * The ticket, locked until the transaction ends, so status moves of concurrent messages and
 * closes apply one after the other (SQLite transactions are already serial).
 */
export function lockTicket(db: Conn, shopId: number, ticketId: number): Promise<TicketRow | undefined> {
  return db
    .selectFrom('tickets')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', ticketId)
    .$if(isPostgres(db), (q) => q.forUpdate())
    .executeTakeFirst();
}

/** For the customer's pages, where the ticket id (with its access key) is all they have. */
export function findTicketById(db: Conn, ticketId: number): Promise<TicketRow | undefined> {
  return db.selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirst();
}

export function insertTicket(db: Conn, row: Insertable<TicketsTable>): Promise<TicketRow> {
  return db.insertInto('tickets').values(row).returningAll().executeTakeFirstOrThrow();
}

export function insertMessage(db: Conn, row: Insertable<TicketMessagesTable>): Promise<TicketMessageRow> {
  return db.insertInto('ticket_messages').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function setTicketStatus(
  db: Conn,
  shopId: number,
  ticketId: number,
  status: TicketStatus,
  now: number,
): Promise<void> {
  await db
    .updateTable('tickets')
    .set({ status, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', ticketId)
    .execute();
}

/** The messages of these tickets, oldest first. */
export function listMessages(db: Conn, shopId: number, ticketIds: number[]): Promise<TicketMessageRow[]> {
  if (ticketIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('ticket_messages')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('ticket_id', 'in', ticketIds)
    .orderBy('id')
    .execute();
}

export interface TicketFilter {
  status?: TicketStatus | undefined;
  search?: string | undefined;
}

function filtered(db: Conn, shopId: number, f: TicketFilter) {
  let query = db.selectFrom('tickets').where('shop_id', '=', shopId);
  if (f.status) query = query.where('status', '=', f.status);
  const search = f.search;
  if (search) query = query.where((eb) => eb.or([containsText('title', search), containsText('email', search)]));
  return query;
}

/** Latest activity first (updated_at, then id); after a keyset position when given, else from the offset. */
export function listTickets(
  db: Conn,
  shopId: number,
  filter: TicketFilter,
  page: { limit: number; offset: number; after?: KeysetPosition | undefined },
): Promise<TicketRow[]> {
  return pageOf(filtered(db, shopId, filter).selectAll(), { sortColumn: 'updated_at', idColumn: 'id' }, page).execute();
}

export async function countTickets(db: Conn, shopId: number, filter: TicketFilter): Promise<number> {
  const row = await filtered(db, shopId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

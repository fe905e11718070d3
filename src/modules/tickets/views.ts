import { toIso } from '../../schemas/common.js';
import type { TicketMessageRow, TicketRow } from './tickets.table.js';

/** Row → wire shapes: the owner's view and the customer's, which carries no e-mail. */
function messages(rows: TicketMessageRow[]) {
  return rows.map((m) => ({ id: m.id, author: m.author, content: m.content, createdAt: toIso(m.created_at) }));
}

export function toOwnerTicket(t: TicketRow, messageRows: TicketMessageRow[]) {
  return {
    id: t.id,
    title: t.title,
    email: t.email,
    invoiceId: t.invoice_id,
    status: t.status,
    messages: messages(messageRows),
    createdAt: toIso(t.created_at),
    updatedAt: toIso(t.updated_at),
  };
}

export function toPublicTicket(t: TicketRow, messageRows: TicketMessageRow[]) {
  return {
    id: t.id,
    shopId: t.shop_id,
    title: t.title,
    invoiceId: t.invoice_id,
    status: t.status,
    messages: messages(messageRows),
    createdAt: toIso(t.created_at),
    updatedAt: toIso(t.updated_at),
  };
}

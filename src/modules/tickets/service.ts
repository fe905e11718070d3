import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import type { PasswordGuesser } from '../../http/auth-failures.js';
import { clientNet } from '../../http/client-net.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import { storefrontPaths } from '../../http/storefront-url.js';
import { buyerLang } from '../../i18n/lang.js';
import type { SecretBox } from '../../security/secret-box.js';
import type { Locale } from '../../shared/locales.js';
import { enqueueMail, type LinkSettings, shopLink, ticketAnsweredMail, ticketOpenedMail } from '../mail/index.js';
import * as invoices from '../orders/index.js';
import { openShop, type ShopAccess } from '../orders/index.js';
import type { ShopRow } from '../shops/index.js';
import { publishEvent } from '../webhooks/index.js';
import * as repo from './repository.js';
import type { CreateTicketBody, TicketListQuery } from './schema.js';
import { nextTicketStatus, type TicketAction } from './state.js';
import type { MessageAuthor, TicketRow } from './tickets.table.js';
import { toOwnerTicket, toPublicTicket } from './views.js';

type Conn = Kysely<Database>;

/**
 * What the ticket mails need: where links point, and the box that seals each ticket's access key
 * so that a later mail (the shop's answer) can carry the ticket's link again.
 */
export interface TicketMailOptions {
  links: LinkSettings;
  secrets: SecretBox;
}

/** SHA-256 (hex) of an access key: only the hash is stored. */
function accessKeyHash(accessKey: string): string {
  return createHash('sha256').update(accessKey, 'utf8').digest('hex');
}

/** Compared in constant time; an unknown ticket is compared against a stand-in so both take as long. */
const STAND_IN_HASH = accessKeyHash(randomBytes(24).toString('base64url'));
function accessKeyMatches(accessKey: string, storedHash: string | undefined): boolean {
  const given = Buffer.from(accessKeyHash(accessKey), 'hex');
  const stored = Buffer.from(storedHash ?? STAND_IN_HASH, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored) && storedHash !== undefined;
}

/** The customer's ticket: an unknown ticket and a wrong key are the same 404. */
async function ticketForCustomer(db: Conn, ticketId: number, accessKey: string): Promise<TicketRow> {
  const ticket = await repo.findTicketById(db, ticketId);
  if (!accessKeyMatches(accessKey, ticket?.access_key_hash) || !ticket) throw new NotFoundError('Ticket');
  return ticket;
}

async function requireTicket(db: Conn, shopId: number, ticketId: number): Promise<TicketRow> {
  const ticket = await repo.findTicket(db, shopId, ticketId);
  if (!ticket) throw new NotFoundError('Ticket');
  return ticket;
}

/**
 * A customer opens a ticket: the shop must exist (404) and be unlocked by `key` when it has a
 * storefront password (403 shop_locked); `invoiceId`, when given, must be an invoice of this
 * shop (400). The ticket, its first message, the `ticket.created` event and the mail to the
 * customer with the ticket's link (its access key in it) are written in one transaction. The key
 * is kept as its SHA-256, which requests are checked against, and sealed with the server's key,
 * which only mail opens. The web storefront passes `access` 'unlocked' (orders' ShopAccess).
 */
export async function openTicket(
  ctx: Context,
  shopId: number,
  body: CreateTicketBody,
  mail: TicketMailOptions,
  access: ShopAccess,
  guesser: PasswordGuesser,
  /** The language the ticket is opened in (its mails are written in it); null: the shop's. */
  locale: Locale | null = null,
): Promise<{ id: number; accessKey: string }> {
  const { db } = ctx;
  const shop = await openShop(db, shopId, body.key, access, guesser);
  const title = body.title.trim();
  const content = body.message.trim();
  if (body.invoiceId != null && !(await invoices.invoiceExists(db, shop.id, body.invoiceId))) {
    throw ValidationError.field('invoiceId', 'is not an invoice of this shop');
  }
  const email = body.email.trim().toLowerCase();
  const accessKey = randomBytes(24).toString('base64url');
  const ticket = await db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const row = await repo.insertTicket(trx, {
      shop_id: shop.id,
      title,
      email,
      invoice_id: body.invoiceId ?? null,
      status: 'open',
      access_key_hash: accessKeyHash(accessKey),
      access_key_sealed: mail.secrets.seal(accessKey),
      locale,
      created_at: now,
      updated_at: now,
    });
    const message = await repo.insertMessage(trx, {
      shop_id: shop.id,
      ticket_id: row.id,
      author: 'customer',
      content,
      created_at: now,
    });
    await publishEvent(
      trx,
      shop.id,
      'ticket.created',
      { ticketId: row.id, title, email, invoiceId: row.invoice_id, messageId: message.id },
      now,
    );
    await enqueueMail(
      trx,
      shop.id,
      {
        to: email,
        ...ticketOpenedMail({
          lang: buyerLang(locale, shop),
          shopName: shop.name,
          ticketId: row.id,
          title,
          ticketUrl: shopLink(mail.links, shop, storefrontPaths.ticket(row.id, accessKey)),
        }),
      },
      now,
      { client: clientNet(guesser.ip) },
    );
    return row;
  });
  return { id: ticket.id, accessKey };
}

const actionOf: Record<MessageAuthor, TicketAction> = { shop: 'shop_message', customer: 'customer_message' };

/**
 * Adds a message and moves the status by the transition table (a closed ticket is a 409), with
 * the `ticket.message` event, in one transaction that holds the ticket locked. A shop message
 * (`answer`) also queues an e-mail to the customer with the answer and the ticket's link.
 */
async function addMessage(
  ctx: Context,
  shopId: number,
  ticketId: number,
  author: MessageAuthor,
  text: string,
  answer?: { shop: ShopRow; mail: TicketMailOptions },
): Promise<void> {
  const content = text.trim();
  await ctx.db.transaction().execute(async (trx) => {
    const ticket = await repo.lockTicket(trx, shopId, ticketId);
    if (!ticket) throw new NotFoundError('Ticket');
    const status = nextTicketStatus(ticket.status, actionOf[author]);
    const now = ctx.clock.now();
    const message = await repo.insertMessage(trx, {
      shop_id: shopId,
      ticket_id: ticketId,
      author,
      content,
      created_at: now,
    });
    await repo.setTicketStatus(trx, shopId, ticketId, status, now);
    await publishEvent(trx, shopId, 'ticket.message', { ticketId, messageId: message.id, author, status }, now);
    if (answer) {
      await enqueueMail(
        trx,
        shopId,
        {
          to: ticket.email,
          ...ticketAnsweredMail({
            lang: buyerLang(ticket.locale, answer.shop),
            shopName: answer.shop.name,
            ticketId,
            title: ticket.title,
            reply: content,
            ticketUrl: ticketLink(answer.shop, ticket, answer.mail),
          }),
        },
        now,
      );
    }
  });
}

async function ownerView(db: Conn, ticket: TicketRow) {
  return toOwnerTicket(ticket, await repo.listMessages(db, ticket.shop_id, [ticket.id]));
}

async function publicView(db: Conn, ticket: TicketRow) {
  return toPublicTicket(ticket, await repo.listMessages(db, ticket.shop_id, [ticket.id]));
}

export async function getPublicTicket(ctx: Context, ticketId: number, accessKey: string) {
  return publicView(ctx.db, await ticketForCustomer(ctx.db, ticketId, accessKey));
}

/** The customer writes: the ticket becomes open again (409 once closed). The shop found by the key scopes every later query. */
export async function postCustomerMessage(ctx: Context, ticketId: number, accessKey: string, content: string) {
  const { db } = ctx;
  const ticket = await ticketForCustomer(db, ticketId, accessKey);
  await addMessage(ctx, ticket.shop_id, ticket.id, 'customer', content);
  return publicView(db, await requireTicket(db, ticket.shop_id, ticket.id));
}

/** Latest activity first (a message or close moves a ticket up), optionally in one status; keyset `cursor`. */
export async function listTickets(ctx: Context, shop: ShopRow, query: TicketListQuery) {
  const { db } = ctx;
  const filter = { status: query.status, search: query.searchString };
  const { limit, offset } = pageWindow(query);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const [rows, totalCount] = await Promise.all([
    repo.listTickets(db, shop.id, filter, { limit: limit + 1, offset, after }),
    repo.countTickets(db, shop.id, filter),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (t) => ({ value: t.updated_at, id: t.id }));
  const messages = await repo.listMessages(
    db,
    shop.id,
    items.map((t) => t.id),
  );
  const views = items.map((t) =>
    toOwnerTicket(
      t,
      messages.filter((m) => m.ticket_id === t.id),
    ),
  );
  return { ...toPage(views, totalCount, query), nextCursor };
}

export async function getTicket(ctx: Context, shop: ShopRow, ticketId: number) {
  return ownerView(ctx.db, await requireTicket(ctx.db, shop.id, ticketId));
}

/**
 * The ticket's link with its access key, opened from the sealed copy; null for a ticket opened
 * before keys were sealed (migration 0018) or sealed under a key the server no longer has.
 */
function ticketLink(shop: ShopRow, ticket: TicketRow, mail: TicketMailOptions): string | null {
  const accessKey = ticket.access_key_sealed === null ? undefined : mail.secrets.tryOpen(ticket.access_key_sealed);
  return accessKey === undefined ? null : shopLink(mail.links, shop, storefrontPaths.ticket(ticket.id, accessKey));
}

/** The shop answers: the ticket becomes answered (409 once closed) and the customer is mailed. */
export async function postShopMessage(
  ctx: Context,
  shop: ShopRow,
  ticketId: number,
  content: string,
  mail: TicketMailOptions,
) {
  await addMessage(ctx, shop.id, ticketId, 'shop', content, { shop, mail });
  return getTicket(ctx, shop, ticketId);
}

/** Closes the ticket for good: later messages and closes are a 409. */
export async function closeTicket(ctx: Context, shop: ShopRow, ticketId: number) {
  await ctx.db.transaction().execute(async (trx) => {
    const ticket = await repo.lockTicket(trx, shop.id, ticketId);
    if (!ticket) throw new NotFoundError('Ticket');
    await repo.setTicketStatus(trx, shop.id, ticketId, nextTicketStatus(ticket.status, 'close'), ctx.clock.now());
  });
  return getTicket(ctx, shop, ticketId);
}

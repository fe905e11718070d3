import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { type PageQuery, toIso } from '../../schemas/common.js';
import { protectionOf } from '../protection/index.js';
import type { MailStatus } from './mail.table.js';
import {
  countQueuedMail,
  countShopMail,
  insertMail,
  listShopMail,
  lockRecipient,
  SUPPRESSED,
  unsentMail,
} from './repository.js';

type Conn = Kysely<Database>;

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** The same content as HTML (src/modules/mail/templates); sent beside the text as multipart/alternative. */
  html?: string;
}

/**
 * Addresses under `.invalid`, the top-level domain reserved never to exist (RFC 2606, RFC 6761):
 * no mail to them can ever arrive. The demo seed gives its fictitious customers such addresses.
 */
export function neverReceivesMail(address: string): boolean {
  return /(^|\.)invalid\.?$/i.test(address.slice(address.lastIndexOf('@') + 1));
}

/** A mail a buyer's action causes (a checkout's instructions, a ticket's confirmation, a sign-in code): counted in the shop's mail budgets. */
export interface BudgetedBy {
  /** The client whose action it is (src/http/client-net.ts), or null when unknown. */
  client: string | null;
}

const HOUR = 3_600_000;

/**
 * Which of the shop's mail budgets (protection settings) one more mail to `to` caused by `client`
 * would exceed, or undefined: per recipient and per client in the last hour, per shop in the
 * last day. Counted in the caller's transaction after the recipient's lock, so parallel mails to
 * one address never pass its budget; the per-client and per-shop counts may let through one more
 * per mail queued at the same instant (they are not locked, which would serialise a shop's checkouts).
 */
/** `1 mail`, `5 mails`. */
const mails = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'mail' : 'mails'}`;

async function exceededBudget(
  db: Conn,
  shopId: number,
  to: string,
  client: string | null,
  now: number,
): Promise<string | undefined> {
  const budget = await protectionOf(db, shopId);
  if (budget.mailPerRecipientHour === 0 && budget.mailPerClientHour === 0 && budget.mailPerShopDay === 0) return;
  await lockRecipient(db, shopId, to);
  if (
    budget.mailPerRecipientHour > 0 &&
    (await countQueuedMail(db, shopId, now - HOUR, { to })) >= budget.mailPerRecipientHour
  )
    return `${mails(budget.mailPerRecipientHour)} to this address per hour (mailPerRecipientHour)`;
  if (
    client !== null &&
    budget.mailPerClientHour > 0 &&
    (await countQueuedMail(db, shopId, now - HOUR, { client })) >= budget.mailPerClientHour
  )
    return `${mails(budget.mailPerClientHour)} caused by one client per hour (mailPerClientHour)`;
  if (budget.mailPerShopDay > 0 && (await countQueuedMail(db, shopId, now - 24 * HOUR, {})) >= budget.mailPerShopDay)
    return `${mails(budget.mailPerShopDay)} per shop per day (mailPerShopDay)`;
  return undefined;
}

/**
 * Writes one mail to the outbox inside the caller's transaction; the worker sends it. Mail to an
 * address that can never receive it is recorded as `dropped` instead, which no worker sends. A
 * mail a buyer's action causes (`budgetedBy`) that would pass one of the shop's mail budgets is
 * recorded `dropped` as well, its reason (`suppressed: …`) in `last_error`: what the action did
 * (the order, the ticket) stands, only its mail is not sent (issue 36, M2). Mail the owner or a
 * payment causes (deliveries, refunds, replies) is never budgeted: a paid order's goods go out.
 */
export async function enqueueMail(
  db: Conn,
  shopId: number,
  mail: OutgoingMail,
  now: number,
  budgetedBy?: BudgetedBy,
): Promise<void> {
  let dropped = neverReceivesMail(mail.to)
    ? { reason: 'not sent: .invalid addresses never receive mail (RFC 6761)' }
    : undefined;
  if (!dropped && budgetedBy) {
    const exceeded = await exceededBudget(db, shopId, mail.to, budgetedBy.client, now);
    if (exceeded) dropped = { reason: `${SUPPRESSED} the shop's mail budget allows ${exceeded}` };
  }
  await insertMail(db, shopId, mail, now, dropped, budgetedBy?.client ?? null);
}

/** The mail not sent yet, of every shop (the operator's metrics): how much, and when the oldest was queued. */
export function mailBacklog(ctx: Context): Promise<{ count: number; oldestCreatedAt: number | null }> {
  return unsentMail(ctx.db);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
export const MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 30 * SECOND;
const MAX_RETRY_MS = 60 * MINUTE;

/** Delay before the next try after `attempts` failed ones: 30 s, 1 min, 2 min, … capped at 1 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
}

/**
 * The shop's outbox as its owner sees it, newest first: to whom, the subject, what became of it
 * and why (a suppressed mail says which budget held it back). Never a mail's body: a delivery's
 * carries the goods.
 */
export async function shopOutbox(
  ctx: Context,
  shopId: number,
  query: PageQuery & { status?: MailStatus | 'suppressed' | undefined },
) {
  const search = query.searchString?.trim() || undefined;
  const filter = query.status === 'suppressed' ? { suppressed: true, search } : { status: query.status, search };
  const { limit, offset } = pageWindow(query);
  const [rows, total] = await Promise.all([
    listShopMail(ctx.db, shopId, filter, limit, offset),
    countShopMail(ctx.db, shopId, filter),
  ]);
  return toPage(
    rows.map((r) => ({
      id: r.id,
      to: r.to_address,
      subject: r.subject,
      status: r.status,
      suppressed: r.status === 'dropped' && (r.last_error ?? '').startsWith(SUPPRESSED),
      reason: r.last_error,
      attempts: r.attempts,
      createdAt: toIso(Number(r.created_at))!,
      sentAt: toIso(r.sent_at === null ? null : Number(r.sent_at)),
    })),
    total,
    query,
  );
}

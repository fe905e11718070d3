import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { fromMinorUnits } from '../../schemas/money.js';
import { recordRefund } from '../customers/index.js';
import { type EventType, recordEvent } from '../events/index.js';
import type { LinkSettings } from '../mail/index.js';
import { addSoldCounts, returnOrderStock } from '../products/index.js';
import { type RollupSource, recordRollupChanges } from '../rollups/index.js';
import { isHostedProvider } from '../shops/index.js';
import { addFeedbackToTotals, countFirstPurchase, shopContentChanged } from '../storefront/index.js';
import {
  type PartDelivery,
  type PlacedOrder,
  queueCheckoutMail,
  queueDeliveryMail,
  queueRefundMail,
  queueReplacementMail,
} from './invoice-mail.js';
import type { InvoicePartRow, InvoiceRow } from './invoices.table.js';
import { ownerInvoiceView } from './owner-view.js';
import * as repo from './repository.js';

type Conn = Kysely<Database>;

/**
 * Domain events: one function per invoice transition (created, completed, cancelled or expired,
 * replaced, refunded) and per feedback change (created, withdrawn by an accepted appeal). Each is called
 * by the write that makes the change, inside its transaction, after the change itself, and
 * updates everything derived from it: dashboard rollups, storefront totals (`shop_totals`,
 * `feedback_products`, units sold), stock counts, the outbox (webhook events, mail) and, once the
 * transaction has committed, the shop's page-cache version. No write site repeats that list.
 *
 * Lock order. Every write transaction of a shop takes, in this order: the shop lock (shared:
 * `shareShop`; an owner's catalog or settings write takes it exclusively), the rows it changes
 * (customers, then variants in id order), and last the shop's rollup lock (`rollup_state`), taken
 * by `recordRollupChanges` as the final step of each function below. One order for every writer
 * means no two wait for each other (PostgreSQL); on SQLite write transactions run one at a time.
 */

/** The shops whose public pages each open `writeTransaction` changed. */
const changedShops = new WeakMap<Conn, Set<number>>();

/**
 * The link settings (PUBLIC_URL, STOREFRONT_DOMAIN) of the app each database handle belongs to,
 * and of the transactions `writeTransaction` opens on it: the invoice in an `invoice.*` webhook
 * carries its `url`, as the owner API shows it, also when the change came from a path that holds
 * no configuration (the expiry worker, an expiry applied as an invoice is read). The app
 * registers its handle once (src/app.ts).
 */
const linkSettings = new WeakMap<Conn, LinkSettings>();

export function useLinkSettings(db: Conn, links: LinkSettings): void {
  linkSettings.set(db, { publicUrl: links.publicUrl, storefrontDomain: links.storefrontDomain });
}

/**
 * A write transaction whose domain events are recorded: after it commits, the page caches of
 * the shops they changed are invalidated (a page computed before the commit can then never be
 * served after it). A domain event outside one is a bug, and throws.
 */
export async function writeTransaction<T>(db: Conn, fn: (trx: Conn) => Promise<T>): Promise<T> {
  const changed = new Set<number>();
  const links = linkSettings.get(db);
  const result = await db.transaction().execute((trx) => {
    changedShops.set(trx, changed);
    if (links) linkSettings.set(trx, links);
    return fn(trx);
  });
  await Promise.all([...changed].map((shopId) => shopContentChanged(shopId)));
  return result;
}

function pagesChanged(trx: Conn, shopId: number): void {
  const changed = changedShops.get(trx);
  if (!changed) throw new Error('a domain event must run inside writeTransaction');
  changed.add(shopId);
}

type InvoiceEventType = Extract<EventType, `invoice.${string}`>;

/**
 * Records an `invoice.*` event after the change it reports. Its data keeps the fields receivers
 * had before (`invoiceId` and the event's own) and, when an endpoint is subscribed to it, adds
 * `invoice`: the invoice exactly as the owner API shows it at that moment, read in the same
 * transaction, so a receiver needs no follow-up call and never sees a later state under an
 * earlier event.
 */
function recordInvoiceEvent(
  db: Conn,
  shopId: number,
  type: InvoiceEventType,
  invoiceId: string,
  extra: Record<string, unknown>,
  now: number,
): Promise<string> {
  return recordEvent(db, shopId, type, { invoiceId, ...extra }, now, async () => {
    const row = await repo.findInvoice(db, shopId, invoiceId);
    if (!row) throw new Error(`invoice ${invoiceId} of shop ${shopId} vanished inside its own transaction`);
    const links = linkSettings.get(db);
    if (!links) throw new Error('invoice events need the link settings of their database handle (useLinkSettings)');
    return { invoice: await ownerInvoiceView(db, row, links) };
  });
}

type InvoiceFacts = Pick<InvoiceRow, 'created_at' | 'gateway' | 'total'>;

const pendingSource = (invoice: InvoiceFacts): RollupSource => ({
  kind: 'invoice',
  createdAt: invoice.created_at,
  status: 'pending',
  gateway: invoice.gateway,
  total: invoice.total,
  completedAt: null,
  repeatPurchase: false,
  parts: [],
});

/**
 * A new pending invoice (its stock already reserved and its parts written): the event, the
 * buyer's mail with the invoice link and how to pay, the rollups. `customerCreated` when its
 * customer is new.
 */
export async function invoiceCreated(
  trx: Conn,
  order: PlacedOrder,
  customerCreated: boolean,
  now: number,
  links: LinkSettings,
): Promise<void> {
  const { invoice } = order;
  const shopId = invoice.shop_id;
  // A card or crypto order's mail waits for the provider's page (payment.service.ts startHostedPayment).
  if (!isHostedProvider(invoice.gateway)) await queueCheckoutMail(trx, order, links);
  await recordInvoiceEvent(
    trx,
    shopId,
    'invoice.created',
    invoice.id,
    { total: fromMinorUnits(invoice.total, invoice.currency), currency: invoice.currency, gateway: invoice.gateway },
    now,
  );
  pagesChanged(trx, shopId);
  const changes = [{ before: null, after: pendingSource(invoice) }];
  if (customerCreated) changes.push({ before: null, after: { kind: 'customer', createdAt: now } });
  await recordRollupChanges(trx, shopId, changes);
}

/**
 * A pending invoice completed (status, deliverables, balance and customer totals already
 * written): units sold, the shop's buyers, the delivery e-mail, the event, the rollups.
 */
export async function invoiceCompleted(
  trx: Conn,
  invoice: InvoiceRow,
  parts: InvoicePartRow[],
  completion: {
    now: number;
    repeatPurchase: boolean;
    commission: number;
    delivered: PartDelivery[];
    links: LinkSettings;
  },
): Promise<void> {
  const shopId = invoice.shop_id;
  const { now } = completion;
  await addSoldCounts(trx, shopId, parts);
  await countFirstPurchase(trx, shopId, invoice.customer_id);
  await queueDeliveryMail(trx, invoice, invoice.customer_email, completion.delivered, completion.links);
  await recordInvoiceEvent(
    trx,
    shopId,
    'invoice.completed',
    invoice.id,
    {
      total: fromMinorUnits(invoice.total, invoice.currency),
      currency: invoice.currency,
      commission: completion.commission,
    },
    now,
  );
  pagesChanged(trx, shopId);
  await recordRollupChanges(trx, shopId, [
    {
      before: pendingSource(invoice),
      after: {
        ...(pendingSource(invoice) as Extract<RollupSource, { kind: 'invoice' }>),
        status: 'completed',
        completedAt: now,
        repeatPurchase: completion.repeatPurchase,
        parts: parts.map((p) => ({ id: p.id, productId: p.product_id, quantity: p.quantity, total: p.total })),
      },
    },
  ]);
}

/** A pending invoice expired or was cancelled: its reserved stock comes back. */
export async function invoiceEndedUnpaid(
  trx: Conn,
  invoice: InvoiceRow,
  to: 'expired' | 'cancelled',
  now: number,
): Promise<void> {
  const shopId = invoice.shop_id;
  await returnOrderStock(trx, shopId, invoice.id, await repo.listParts(trx, shopId, [invoice.id]));
  await recordInvoiceEvent(
    trx,
    shopId,
    to === 'expired' ? 'invoice.expired' : 'invoice.cancelled',
    invoice.id,
    {},
    now,
  );
  pagesChanged(trx, shopId);
  await recordRollupChanges(trx, shopId, [
    {
      before: pendingSource(invoice),
      after: { ...(pendingSource(invoice) as Extract<RollupSource, { kind: 'invoice' }>), status: to },
    },
  ]);
}

/** Items of a completed part delivered again (the replacement row already written). */
export async function invoiceReplaced(
  trx: Conn,
  invoice: InvoiceRow,
  replacement: PartDelivery,
  now: number,
  links: LinkSettings,
): Promise<void> {
  const shopId = invoice.shop_id;
  await queueReplacementMail(trx, invoice, replacement, links);
  await recordInvoiceEvent(
    trx,
    shopId,
    'invoice.replaced',
    invoice.id,
    { partInvoiceId: replacement.part.id, quantity: replacement.quantity },
    now,
  );
  pagesChanged(trx, shopId);
  await recordRollupChanges(trx, shopId, [
    { before: null, after: { kind: 'replacement', createdAt: now, quantity: replacement.quantity } },
  ]);
}

/**
 * A refund of a completed invoice made (its row marked succeeded, the invoice's `refunded`
 * already counting it, a balance refund already credited): the buyer's lifetime spend, the
 * buyer's mail, the event, the rollups. Revenue keeps the order's total: the dashboard shows refunds beside it.
 */
export async function invoiceRefunded(
  trx: Conn,
  invoice: InvoiceRow,
  refund: {
    id: number;
    amount: number;
    /** The amount in the shop's currency today (the buyer's lifetime spend is kept in it). */
    localAmount: number;
    reason: string | null;
    method: string;
    createdAt: number;
  },
  now: number,
  links: LinkSettings,
): Promise<void> {
  const shopId = invoice.shop_id;
  await recordRefund(trx, shopId, invoice.customer_id, refund.localAmount, now);
  await queueRefundMail(trx, shopId, invoice.id, refund, links);
  await recordInvoiceEvent(
    trx,
    shopId,
    'invoice.refunded',
    invoice.id,
    {
      refundId: refund.id,
      amount: fromMinorUnits(refund.amount, invoice.currency),
      currency: invoice.currency,
      reason: refund.reason,
      method: refund.method,
    },
    now,
  );
  pagesChanged(trx, shopId);
  await recordRollupChanges(trx, shopId, [
    { before: null, after: { kind: 'refund', createdAt: refund.createdAt, amount: refund.amount } },
  ]);
}

/** A new feedback on an invoice (the row already written). */
export async function feedbackCreated(
  trx: Conn,
  feedback: {
    id: number;
    shopId: number;
    invoiceId: string;
    rating: number;
    comment: string | null;
    createdAt: number;
  },
  productIds: number[],
): Promise<void> {
  const { shopId } = feedback;
  await addFeedbackToTotals(trx, shopId, feedback);
  await recordEvent(
    trx,
    shopId,
    'feedback.created',
    {
      feedbackId: feedback.id,
      invoiceId: feedback.invoiceId,
      productIds,
      rating: feedback.rating,
      comment: feedback.comment,
    },
    feedback.createdAt,
  );
  pagesChanged(trx, shopId);
  await recordRollupChanges(trx, shopId, [
    { before: null, after: { kind: 'feedback', createdAt: feedback.createdAt, rating: feedback.rating } },
  ]);
}

/**
 * A feedback hidden by an accepted appeal: it no longer counts anywhere. Storefront lists and
 * totals leave such feedbacks out when read; the rollups take its rating out here.
 */
export async function feedbackWithdrawn(
  trx: Conn,
  shopId: number,
  feedback: { rating: number; createdAt: number },
): Promise<void> {
  pagesChanged(trx, shopId);
  await recordRollupChanges(trx, shopId, [
    { before: { kind: 'feedback', createdAt: feedback.createdAt, rating: feedback.rating }, after: null },
  ]);
}

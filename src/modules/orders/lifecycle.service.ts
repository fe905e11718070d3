import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import type { PartDelivery } from '../../domain/events.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { fromMinorUnits } from '../../schemas/money.js';
import { releaseCouponUse } from '../coupons/index.js';
import * as customers from '../customers/index.js';
import { changeBalance } from '../customers/index.js';
import { DynamicDeliveryError, type DynamicOrder, deliverUnits, dynamicDeliverable } from '../products/index.js';
import { affiliateCommission, shareShop } from '../shops/index.js';
import { publishEvent } from '../webhooks/index.js';
import { invoiceCompleted, invoiceEndedUnpaid } from './domain-events.js';
import type { InvoicePartRow, InvoiceRow, InvoiceStatus, PaymentSource } from './invoices.table.js';
import type { OrderOptions } from './order-options.js';
import * as repo from './repository.js';
import { assertTransition } from './state.js';

type Conn = Kysely<Database>;

export async function requireInvoice(db: Conn, shopId: number, invoiceId: string): Promise<InvoiceRow> {
  const invoice = await repo.findInvoice(db, shopId, invoiceId);
  if (!invoice) throw new NotFoundError('Invoice');
  return invoice;
}

/**
 * Ends a pending invoice without a sale (`expired` or `cancelled`): returns its reserved
 * serials and counted stock and its coupon use, in one transaction. False when the invoice was
 * no longer pending (another writer ended it first).
 */
export async function endUnpaid(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  to: Extract<InvoiceStatus, 'expired' | 'cancelled'>,
  now = ctx.clock.now(),
): Promise<boolean> {
  return writeTransaction(ctx, async (tx) => {
    const trx = tx.db;
    await shareShop(trx, shopId);
    const invoice = await repo.moveStatus(trx, shopId, invoiceId, 'pending', to, now);
    if (!invoice) return false;
    // A cancellation is always asked for (an expiry never is): it is the work of a request's Idempotency-Key.
    if (to === 'cancelled') await recordIdempotentWork(trx, invoiceId);
    if (invoice.coupon_id !== null) await releaseCouponUse(trx, shopId, invoice.coupon_id);
    await invoiceEndedUnpaid(tx, invoice, to, now);
    return true;
  });
}

/**
 * Read-time expiry: a pending invoice past its expiry is expired now, so a stopped worker
 * never lets expired stock be sold or an expired invoice be completed.
 */
export async function withExpiryApplied(ctx: Context, invoice: InvoiceRow, now = ctx.clock.now()): Promise<InvoiceRow> {
  if (invoice.status !== 'pending' || invoice.expires_at > now) return invoice;
  await endUnpaid(ctx, invoice.shop_id, invoice.id, 'expired', now);
  return requireInvoice(ctx.db, invoice.shop_id, invoice.id);
}

/** How many overdue invoices `expireOverdue` reads at a time. */
export const EXPIRY_BATCH = 100;

/**
 * Expires every overdue invoice of a shop (or of every shop), in batches until none is left,
 * through the (status, expires_at) index: none at all is one indexed lookup. The worker drains
 * all shops on its timer; every read that shows a shop's invoices or figures built on them (the
 * owner's list and its counts, dashboards) and the checkout (which must not find stock held by
 * them) drain that shop first, so they show the true status whether or not the worker has run.
 * The set is fixed by `now` (invoices made later expire later), so the loop ends; an invoice
 * another writer ended first is simply not counted.
 */
export async function expireOverdue(ctx: Context, options: { shopId?: number } = {}): Promise<number> {
  const now = ctx.clock.now();
  let expired = 0;
  for (;;) {
    const overdue = await repo.overdueInvoices(ctx.db, now, EXPIRY_BATCH, options.shopId);
    for (const invoice of overdue) if (await endUnpaid(ctx, invoice.shop_id, invoice.id, 'expired', now)) expired++;
    if (overdue.length < EXPIRY_BATCH) return expired;
  }
}

/** Records `product.out_of_stock` when taking units left a variant none (`left`, from takeUnits). */
export async function noteIfOutOfStock(
  db: Conn,
  shopId: number,
  productId: number,
  variantId: number,
  left: number | null,
  now: number,
): Promise<void> {
  if (left === 0) await publishEvent(db, shopId, 'product.out_of_stock', { productId, variantId }, now);
}

/** What the owner's URL of a dynamic part is sent (products' dynamicDeliverable). */
export function dynamicOrderOf(
  invoice: InvoiceRow,
  part: InvoicePartRow,
  quantity: number,
  replacement: boolean,
): DynamicOrder {
  return {
    invoiceId: invoice.id,
    shopId: invoice.shop_id,
    productId: part.product_id,
    variantId: part.variant_id,
    quantity,
    customerEmail: invoice.customer_email,
    customFields: JSON.parse(invoice.custom_fields) as Record<string, unknown>,
    replacement,
  };
}

/** A dynamic part's delivery failed (422); the failure is recorded on the invoice, which stays pending. */
export class DeliveryFailedError extends UnprocessableError {
  constructor(reason: string) {
    super('The dynamic delivery failed; the invoice stays pending. Process it again to retry.', [
      `delivery: ${reason}`,
    ]);
  }
}

/**
 * Completes a pending invoice (payment confirmed or owner processed) in one transaction:
 * status, balance debit for the balance gateway, stock consumption and deliverables, customer
 * totals, units sold, affiliate commission, the delivery e-mail and the event, and the payment's
 * `reference` (the provider's payment id, or the owner's for a manual payment). Dynamic parts are
 * asked for first; a failure is recorded on the invoice (422) and processing again retries.
 */
export async function completeInvoice(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  options: OrderOptions,
  payment: { source: PaymentSource; reference?: string | null | undefined },
): Promise<void> {
  const { db } = ctx;
  // Read before the transaction: a 409 before the owner's URL is asked anything, and the parts
  // (written once at checkout, never changed) whose dynamic items are fetched first.
  const pending = await withExpiryApplied(ctx, await requireInvoice(db, shopId, invoiceId));
  assertTransition(pending.status, 'completed');
  const parts = await repo.listParts(db, shopId, [invoiceId]);
  const answers = new Map<number, string>();
  try {
    for (const part of parts.filter((p) => p.product_type === 'dynamic')) {
      answers.set(part.id, await dynamicDeliverable(db, dynamicOrderOf(pending, part, part.quantity, false), options));
    }
  } catch (err) {
    if (!(err instanceof DynamicDeliveryError)) throw err;
    await repo.setDeliveryError(db, shopId, invoiceId, err.message, ctx.clock.now());
    throw new DeliveryFailedError(err.message);
  }

  await writeTransaction(ctx, async (tx) => {
    const trx = tx.db;
    await shareShop(trx, shopId);
    await recordIdempotentWork(trx, invoiceId);
    const now = ctx.clock.now();
    // The invoice as this transaction moved it, after the shop lock: what the completion writes
    // and its event carry comes from here, not from the read above.
    const invoice = await repo.moveStatus(trx, shopId, invoiceId, 'pending', 'completed', now, {
      notExpiredAt: now,
      paymentReference: payment.reference ?? null,
      paymentSource: payment.source,
    });
    if (!invoice) {
      throw new ConflictError('The invoice is no longer pending.', ['status: is not pending']);
    }
    if (invoice.affiliate_customer_id !== null)
      await customers.lockCustomers(trx, shopId, [invoice.customer_id, invoice.affiliate_customer_id]);
    if (invoice.gateway === 'balance' && invoice.total > 0) {
      await changeBalance(
        trx,
        shopId,
        invoice.customer_id,
        { delta: -invoice.total, kind: 'purchase', invoiceId },
        now,
      );
    }
    const delivered: PartDelivery[] = [];
    for (const part of parts) {
      const deliverables = await deliverUnits(
        trx,
        shopId,
        part,
        { invoiceId, quantity: part.quantity, customerId: invoice.customer_id, email: invoice.customer_email },
        now,
        answers.get(part.id),
      );
      if (part.product_type === 'serials' && deliverables.length !== part.quantity)
        throw new Error(
          `invoice ${invoiceId} part ${part.id}: ${deliverables.length} reserved serials for ${part.quantity} units`,
        );
      await repo.setPartDeliverables(trx, shopId, part.id, deliverables);
      delivered.push({ part, quantity: part.quantity, deliverables });
    }
    await customers.recordPurchase(trx, shopId, invoice.customer_id, invoice.total, now);
    const repeatPurchase = await repo.markRepeatPurchase(trx, shopId, invoiceId, invoice.customer_id);
    const commission = await payCommission(trx, invoice, now);
    await invoiceCompleted(tx, invoice, parts, { now, repeatPurchase, commission, delivered });
  });
}

/**
 * A refund takes back the referrer's commission in the refund's proportion of what was still
 * unrefunded (issue 36, L7: a full refund kept it): a full refund, or the last part of one, takes
 * all that is left of it, so the parts always add up to the commission. `invoices.commission`
 * keeps what still stands, which the affiliates' totals count. The referrer's balance gives what
 * it holds: one that was spent already goes to zero, never below, and the ledger row's note says
 * what could not be taken back, so a refund is never refused for a referrer's spending. In the
 * refund's transaction (a subscriber of `invoice.refunded`, whose invoice counts the refund).
 */
export async function reverseCommission(
  tx: { db: Conn },
  invoice: InvoiceRow,
  refundAmount: number,
  now: number,
): Promise<void> {
  const referrerId = invoice.affiliate_customer_id;
  if (referrerId === null || invoice.commission <= 0) return;
  const unrefundedBefore = invoice.total - (invoice.refunded - refundAmount);
  if (unrefundedBefore <= 0) return;
  const reversal =
    refundAmount >= unrefundedBefore
      ? invoice.commission
      : Math.min(invoice.commission, Math.round((invoice.commission * refundAmount) / unrefundedBefore));
  if (reversal <= 0) return;
  const { db } = tx;
  await customers.lockCustomers(db, invoice.shop_id, [referrerId]);
  const referrer = await customers.requireCustomer(db, invoice.shop_id, referrerId);
  const taken = Math.min(reversal, referrer.balance);
  if (taken > 0) {
    const short = reversal - taken;
    const note =
      `Referral commission taken back: refund of ${invoice.id}` +
      (short > 0
        ? ` (${fromMinorUnits(short, invoice.currency)} ${invoice.currency} more was due; the balance was spent)`
        : '');
    await changeBalance(
      db,
      invoice.shop_id,
      referrerId,
      { delta: -taken, kind: 'commission_reversal', invoiceId: invoice.id, note },
      now,
    );
  }
  await repo.setCommission(db, invoice.shop_id, invoice.id, invoice.commission - reversal);
}

/** The shop's affiliate percentage of the total, credited to the referrer unless disabled. */
async function payCommission(db: Conn, invoice: InvoiceRow, now: number): Promise<number> {
  const referrerId = invoice.affiliate_customer_id;
  if (referrerId === null) return 0;
  const [commission, earns] = await Promise.all([
    affiliateCommission(db, invoice.shop_id, invoice.total),
    customers.earnsCommission(db, invoice.shop_id, referrerId),
  ]);
  if (!earns || commission === 0) return 0;
  await changeBalance(
    db,
    invoice.shop_id,
    referrerId,
    { delta: commission, kind: 'commission', invoiceId: invoice.id, note: `Referral commission for ${invoice.id}` },
    now,
  );
  await repo.setCommission(db, invoice.shop_id, invoice.id, commission);
  return fromMinorUnits(commission, invoice.currency);
}

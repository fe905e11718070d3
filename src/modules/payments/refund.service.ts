import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context, WriteContext } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { ConflictError, PaymentProviderError, UnprocessableError } from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { currencyDigits } from '../../schemas/currencies.js';
import { rescaleMinorUnits, toMinorUnits } from '../../schemas/money.js';
import * as customers from '../customers/index.js';
import { gateways, hostedGateways, ProviderCallError } from '../gateways/index.js';
import type { InvoiceRefundRow, InvoiceRow } from '../orders/index.js';
import * as orders from '../orders/index.js';
import { gatewayCredentials } from '../settings/index.js';
import { type HostedProvider, isHostedProvider, shareShop, shopCurrency } from '../shops/index.js';
import type { PaymentContext } from './payment.service.js';

type Conn = Kysely<Database>;

/**
 * Refunds of completed orders: through the provider that took the money, to the buyer's store
 * balance, or recorded for the owner to send. The amounts held, the rows and the event are the
 * orders module's payment record (its refund operations); this module decides how the money goes
 * back and asks the provider.
 */

/** How a refund of an invoice is made: through its provider, to the store balance, or recorded. */
function refundMethod(invoice: InvoiceRow): 'provider' | 'balance' | 'recorded' {
  if (invoice.gateway === 'balance') return 'balance';
  // Only a payment the provider confirmed can be given back through it: an order of a card gateway
  // that the owner processed by hand was paid some other way.
  if (isHostedProvider(invoice.gateway) && invoice.payment_source === 'provider' && invoice.payment_reference !== null)
    return 'provider';
  return 'recorded';
}

/**
 * How long a provider refund may stay pending before a refund request asks the provider again for
 * it: well past what one call with its retry may take, so the request that is still asking is
 * never raced.
 */
const staleRefundMs = (context: PaymentContext) => Math.max(5 * 60_000, 4 * context.endpoints.timeoutMs);

/** What a refund makes of the buyer's balance and lifetime spend: the invoice's minor units in the shop's currency today. */
function inShopCurrency(amount: number, invoiceCurrency: string, shopCurrency: string): number {
  return invoiceCurrency === shopCurrency ? amount : rescaleMinorUnits(amount, invoiceCurrency, shopCurrency);
}

/**
 * Records a refund made (its row already `succeeded` or being marked so here, the invoice's
 * `refunded` already counting it): a balance order's credit, the buyer's lifetime spend, the
 * event, the rollups. Inside the caller's write transaction, after the shop's share.
 */
async function refundMade(
  tx: WriteContext,
  invoice: InvoiceRow,
  refund: { id: number; amount: number; reason: string | null; method: InvoiceRefundRow['method']; createdAt: number },
  providerRefundId: string | null,
): Promise<void> {
  const trx = tx.db;
  const { shop_id: shopId } = invoice;
  if (!(await orders.finishRefund(tx, shopId, refund.id, { providerRefundId, method: refund.method }))) return;
  const local = inShopCurrency(refund.amount, invoice.currency, await shopCurrency(trx, shopId));
  if (refund.method === 'balance')
    await customers.changeBalance(
      trx,
      shopId,
      invoice.customer_id,
      { delta: local, kind: 'refund', invoiceId: invoice.id, note: refund.reason ?? `Refund of ${invoice.id}` },
      tx.clock.now(),
    );
  await orders.refundRecorded(tx, invoice, { ...refund, localAmount: local });
}

/** Asks the provider for a refund row's refund, with the row's own idempotency key. */
async function askProvider(
  db: Conn,
  invoice: InvoiceRow,
  refund: { id: number; amount: number },
  context: PaymentContext,
) {
  const provider = invoice.gateway as HostedProvider;
  const credentials = await gatewayCredentials(db, context.secrets, invoice.shop_id, provider);
  if (!credentials) throw new ProviderCallError(`${provider} is not configured, or its secrets cannot be read`);
  return hostedGateways[provider].refund(
    credentials,
    {
      reference: invoice.payment_reference!,
      amount: refund.amount,
      currency: invoice.currency,
      digits: currencyDigits(invoice.currency),
      invoiceId: invoice.id,
      key: `shopd-refund-${invoice.shop_id}-${refund.id}`,
    },
    context.endpoints,
  );
}

/**
 * A provider refund that did not finish: the provider refused (definite: the hold is given back,
 * nothing was refunded) or its answer is unknown (a timeout, a server error: the refund may have
 * been made, so the row and its hold stay pending, to be asked again with the same key).
 */
async function providerFailed(ctx: Context, invoice: InvoiceRow, refund: { id: number; amount: number }, err: unknown) {
  if (!(err instanceof ProviderCallError)) throw err;
  const label = gateways[invoice.gateway as HostedProvider].label;
  if (err.unknown)
    throw new PaymentProviderError(
      `${label} did not answer the refund, which may or may not have been made: it is kept as pending. Refund this order ` +
        'again in a few minutes to ask again: the same refund is asked for, never a second one.',
      [`gateway: ${err.detail}`],
    );
  await writeTransaction(ctx, async (tx) => {
    await shareShop(tx.db, invoice.shop_id);
    await orders.dropRefund(tx, invoice.shop_id, invoice.id, refund);
  });
  throw new PaymentProviderError(`${label} refused the refund; nothing was refunded.`, [`gateway: ${err.detail}`]);
}

/**
 * Refunds a completed invoice, in full (no amount: what is left) or in part, with a reason.
 * - `balance` orders are credited back to the buyer's store balance, in one transaction;
 * - card orders paid on Stripe's page are refunded through Stripe (its refund id is kept);
 * - crypto, manual and hand-processed card orders are recorded, in one transaction: the owner
 *   sends the money (the crypto API has no refunds).
 * A provider refund first holds the amount against the invoice with a pending row (a conditional
 * update: two concurrent refunds never give back more than its total), then asks the provider
 * with the row's own idempotency key, then one transaction records it. A refusal gives the hold
 * back (502); an unknown answer keeps it pending (502), and the next refund request of the invoice
 * asks again for that refund, with the same key, instead of making a new one. Each refund lowers
 * the buyer's lifetime spend, writes `invoice.refunded` and counts in the dashboard.
 */
export async function refundInvoice(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  body: { amount?: number | null | undefined; reason?: string | null | undefined },
  payments: PaymentContext,
): Promise<void> {
  const { db } = ctx;
  const invoice = await orders.requireInvoice(db, shopId, invoiceId);
  if (invoice.status !== 'completed')
    throw new ConflictError(`Only a completed invoice can be refunded; this one is ${invoice.status}.`, [
      `status: is ${invoice.status}`,
    ]);
  const pending = await orders.pendingRefund(ctx, shopId, invoiceId);
  // A refund being asked of the provider right now (by another request) is left to it.
  if (pending && pending.created_at > ctx.clock.now() - staleRefundMs(payments))
    throw new ConflictError('Another refund of this invoice is being made; read it again in a moment.', [
      'amount: another refund of this invoice is under way',
    ]);
  if (pending) {
    // Settle the refund whose answer was lost before anything else: asked again with its own key.
    let providerRefundId: string | null;
    try {
      providerRefundId = await askProvider(db, invoice, pending, payments);
    } catch (err) {
      return providerFailed(ctx, invoice, pending, err);
    }
    await writeTransaction(ctx, async (tx) => {
      await shareShop(tx.db, shopId);
      await recordIdempotentWork(tx.db, invoiceId);
      const method = providerRefundId === null ? 'recorded' : 'provider';
      await refundMade(
        tx,
        invoice,
        { id: pending.id, amount: pending.amount, reason: pending.reason, method, createdAt: pending.created_at },
        providerRefundId,
      );
    });
    return;
  }
  const left = invoice.total - invoice.refunded;
  if (left <= 0)
    throw new ConflictError('This invoice is refunded in full already.', ['amount: nothing is left to refund']);
  const amount = body.amount == null ? left : toMinorUnits(body.amount, invoice.currency, 'amount');
  if (amount > left)
    throw new UnprocessableError('The refund is more than what is left to refund.', [
      `amount: at most ${orders.moneyText(left, invoice.currency)} is left to refund`,
    ]);
  const method = refundMethod(invoice);
  const reason = body.reason?.trim() || null;
  const createdAt = ctx.clock.now();
  const hold = async (tx: Context) => {
    await shareShop(tx.db, shopId);
    // The refund held is the work of the request's Idempotency-Key: a retry after a crash answers the invoice, it refunds no more.
    await recordIdempotentWork(tx.db, invoiceId);
    const id = await orders.holdRefund(tx, shopId, invoiceId, { amount, reason, method, created_at: createdAt });
    if (id === null)
      throw new ConflictError('Another refund of this invoice was made meanwhile; read it again.', [
        'amount: is more than what is left to refund',
      ]);
    return id;
  };
  if (method !== 'provider') {
    // Nothing outside shopd to ask: the hold and the record are one transaction.
    await writeTransaction(ctx, async (tx) => {
      const id = await hold(tx);
      await refundMade(tx, invoice, { id, amount, reason, method, createdAt }, null);
    });
    return;
  }
  const refundId = await writeTransaction(ctx, hold);
  let providerRefundId: string | null;
  try {
    providerRefundId = await askProvider(db, invoice, { id: refundId, amount }, payments);
  } catch (err) {
    return providerFailed(ctx, invoice, { id: refundId, amount }, err);
  }
  await writeTransaction(ctx, async (tx) => {
    await shareShop(tx.db, shopId);
    await refundMade(
      tx,
      invoice,
      { id: refundId, amount, reason, method: providerRefundId === null ? 'recorded' : 'provider', createdAt },
      providerRefundId,
    );
  });
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context, WriteContext } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import {
  ConflictError,
  NotFoundError,
  PaymentProviderError,
  UnprocessableError,
  ValidationError,
} from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { currencyDigits } from '../../schemas/currencies.js';
import { rescaleMinorUnits, toMinorUnits } from '../../schemas/money.js';
import * as customers from '../customers/index.js';
import {
  type CallbackOutcome,
  gateways,
  hostedGateways,
  ProviderCallError,
  SignatureError,
} from '../payments/index.js';
import { gatewayCredentials } from '../settings/index.js';
import { findShop, type HostedProvider, isHostedProvider, shareShop } from '../shops/index.js';
import { invoiceRefunded } from './domain-events.js';
import { moneyText, queueCheckoutMail, readPlacedOrder } from './invoice-mail.js';
import type { InvoiceRefundRow, InvoiceRow } from './invoices.table.js';
import { completeInvoice, DeliveryFailedError, endUnpaid, requireInvoice } from './lifecycle.service.js';
import type { OrderOptions, PaymentContext } from './order-options.js';
import { invoiceUrl } from './owner-view.js';
import * as payments from './payment.repository.js';
import * as repo from './repository.js';

type Conn = Kysely<Database>;

/**
 * Payments as the invoice sees them: a hosted payment started at checkout, provider callbacks
 * applied once, and refunds. Whatever a provider says is applied through the invoice lifecycle
 * (lifecycle.service.ts): `completeInvoice` and `endUnpaid` stay the only writers of an invoice's
 * status, and their conditional moves are what makes a completion happen once, whichever of
 * two concurrent callbacks, a cancel or an expiry comes first.
 */

/** How long a payment the owner must look at (an underpayment, a payment awaiting confirmation) holds the order's stock. */
export const ATTENTION_HOLD_MS = 7 * 24 * 60 * 60_000;
/**
 * How long an invoice outlives its provider's payment page: a payment made in the page's last
 * moment is still being reported when the invoice would otherwise expire.
 */
export const CALLBACK_GRACE_MS = 10 * 60_000;
/** A callback's claim never settled for this long was left by a process that died: the next delivery takes it over. */
export const STALE_CLAIM_MS = 5 * 60_000;

/**
 * Starts the provider's payment of a new invoice of a hosted gateway (checkout calls it once the
 * invoice is written): the provider's page and id are stored on the invoice, whose expiry becomes
 * the page's (plus CALLBACK_GRACE_MS): the stock is held exactly while the buyer can pay. When the
 * provider cannot be asked, the invoice is cancelled at once (stock and coupon returned) and the
 * checkout answers 502: no order is left that could never be paid.
 */
export async function startHostedPayment(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  options: OrderOptions,
): Promise<void> {
  const { db } = ctx;
  const invoice = await requireInvoice(db, shopId, invoiceId);
  if (!isHostedProvider(invoice.gateway)) return;
  const provider = invoice.gateway;
  const credentials = await gatewayCredentials(db, options.payments.secrets, shopId, provider);
  let started: Awaited<ReturnType<(typeof hostedGateways)[HostedProvider]['start']>>;
  try {
    if (!credentials) throw new ProviderCallError(`${provider} is not configured, or its secrets cannot be read`);
    const [shop, parts] = await Promise.all([findShop(db, shopId), repo.listParts(db, shopId, [invoiceId])]);
    started = await hostedGateways[provider].start(
      credentials,
      {
        shopId,
        invoiceId,
        amount: invoice.total,
        currency: invoice.currency,
        digits: currencyDigits(invoice.currency),
        customerEmail: invoice.customer_email,
        title: `${shop.name}: order ${invoiceId}`,
        description: parts.map((p) => `${p.title} × ${p.quantity}`).join(', '),
        returnUrl: invoiceUrl(ctx.config, shop, invoiceId),
        expiresAt: invoice.expires_at,
      },
      options.payments.endpoints,
    );
  } catch (err) {
    if (!(err instanceof ProviderCallError)) throw err;
    await endUnpaid(ctx, shopId, invoiceId, 'cancelled');
    options.payments.log.warn({ shopId, invoiceId, provider, reason: err.detail }, 'payment could not be started');
    // The provider's words are for the owner (the log has them): they may name the shop's key or account.
    throw new PaymentProviderError(
      `The payment could not be started with ${gateways[provider].label}, so the order was not placed; try again, or pay another way.`,
      [`gateway: ${gateways[provider].label} refused or did not answer`],
    );
  }
  await payments.setHostedPayment(
    db,
    shopId,
    invoiceId,
    {
      ref: started.ref,
      url: started.url,
      closesAt: started.expiresAt,
      expiresAt: started.expiresAt + CALLBACK_GRACE_MS,
    },
    ctx.clock.now(),
  );
  // Only now: a provider that could not start the payment leaves no "how to pay" mail behind, and
  // the mail's deadline is the page's.
  await queueCheckoutMail(db, await readPlacedOrder(db, shopId, invoiceId), ctx.config, ctx.clock.now());
}

/**
 * After a pending invoice of a hosted gateway was cancelled: closes the provider's page, so the
 * buyer cannot pay an order that no longer exists. Best effort: a failure is logged, and a
 * payment that still arrives is noted on the invoice for the owner (applyCallback).
 */
export async function closeHostedPayment(db: Conn, invoice: InvoiceRow, context: PaymentContext): Promise<void> {
  if (!isHostedProvider(invoice.gateway) || invoice.payment_ref === null) return;
  const credentials = await gatewayCredentials(db, context.secrets, invoice.shop_id, invoice.gateway);
  try {
    if (credentials) await hostedGateways[invoice.gateway].close(credentials, invoice.payment_ref, context.endpoints);
  } catch (err) {
    const reason = err instanceof ProviderCallError ? err.detail : String(err);
    context.log.warn(
      { shopId: invoice.shop_id, invoiceId: invoice.id, provider: invoice.gateway, reason },
      'the payment page of a cancelled invoice could not be closed',
    );
  }
}

/** What one callback did to its invoice, as the provider is answered and the event is kept. */
type Applied =
  | 'completed'
  | 'already-completed'
  | 'expired'
  | 'cancelled'
  | 'held'
  | 'noted'
  | 'ignored'
  | 'duplicate'
  | 'amount-mismatch'
  | 'paid-late'
  | 'delivery-failed';

async function applyPaid(
  ctx: Context,
  invoice: InvoiceRow,
  outcome: Extract<CallbackOutcome, { kind: 'paid' }>,
  options: OrderOptions,
): Promise<Applied> {
  const { db } = ctx;
  const { shop_id: shopId, id } = invoice;
  if (outcome.amount !== invoice.total || outcome.currency !== invoice.currency) {
    const paid = outcome.amount < 0 ? `an unknown amount` : moneyText(outcome.amount, outcome.currency || '?');
    await payments.notePayment(
      db,
      shopId,
      id,
      `Paid ${paid} for an order of ${moneyText(invoice.total, invoice.currency)} (payment ${outcome.reference}): ` +
        'not completed. Refund the payment at the provider, or process the order by hand.',
      invoice.status === 'pending'
        ? { onlyIf: ['pending'], holdUntil: ctx.clock.now() + ATTENTION_HOLD_MS }
        : { onlyIf: [invoice.status] },
      ctx.clock.now(),
    );
    return 'amount-mismatch';
  }
  if (invoice.status === 'pending') {
    try {
      await completeInvoice(ctx, shopId, id, options, { source: 'provider', reference: outcome.reference });
      return 'completed';
    } catch (err) {
      if (err instanceof DeliveryFailedError) {
        // Paid: the order must not expire while the owner retries the delivery.
        const now = ctx.clock.now();
        await payments.notePayment(
          db,
          shopId,
          id,
          'Paid; the delivery failed. Process the order again to retry it.',
          { onlyIf: ['pending'], holdUntil: now + ATTENTION_HOLD_MS, providerReference: outcome.reference },
          now,
        );
        return 'delivery-failed';
      }
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  // Not pending (any more): completed by another callback or the owner, or ended before the money came.
  const now = await requireInvoice(db, shopId, id);
  if (now.status === 'completed') return 'already-completed';
  await payments.notePayment(
    db,
    shopId,
    id,
    `Paid ${moneyText(outcome.amount, outcome.currency)} after the order was ${now.status} (payment ` +
      `${outcome.reference}): nothing was delivered. Refund the payment at the provider.`,
    { onlyIf: ['expired', 'cancelled'] },
    ctx.clock.now(),
  );
  return 'paid-late';
}

async function applyOutcome(
  ctx: Context,
  shopId: number,
  provider: HostedProvider,
  outcome: CallbackOutcome,
  options: OrderOptions,
): Promise<Applied> {
  if (outcome.kind === 'ignored') return 'ignored';
  // Only this shop's invoices, and only the payment started for them: a callback naming another
  // shop's invoice, or another payment, changes nothing.
  if (outcome.shopId !== shopId || outcome.invoiceId === null) return 'ignored';
  const { db } = ctx;
  const now = ctx.clock.now();
  const invoice = await repo.findInvoice(db, shopId, outcome.invoiceId);
  if (!invoice || invoice.gateway !== provider || invoice.payment_ref !== outcome.ref) return 'ignored';
  switch (outcome.kind) {
    case 'paid':
      return applyPaid(ctx, invoice, outcome, options);
    case 'ended':
      if (invoice.status !== 'pending') return 'ignored';
      return (await endUnpaid(ctx, shopId, invoice.id, outcome.status)) ? outcome.status : 'ignored';
    case 'attention':
      // A late word about a payment that completed the order (a `charge:pending` after the confirmation).
      if (invoice.status === 'completed') return 'ignored';
      if (invoice.status !== 'pending') {
        await payments.notePayment(db, shopId, invoice.id, outcome.note, { onlyIf: ['expired', 'cancelled'] }, now);
        return 'noted';
      }
      await payments.notePayment(
        db,
        shopId,
        invoice.id,
        outcome.note,
        { onlyIf: ['pending'], holdUntil: now + ATTENTION_HOLD_MS },
        now,
      );
      return 'held';
  }
}

/**
 * A provider's callback for a shop (`POST /v2/public/payments/{provider}/{shopId}/webhook`): the
 * signature is checked on the raw body with the shop's webhook secret (400 when it fails; 404 when
 * the shop has not configured the provider), then the event is claimed by its id: a repeat is
 * answered `duplicate` and changes nothing; one arriving while the first is handled is a 409, so
 * that the provider retries it. When handling fails the claim is let go, so the provider's retry is
 * handled anew; a claim a dead process left is taken over after STALE_CLAIM_MS.
 */
export async function applyCallback(
  ctx: Context,
  provider: HostedProvider,
  shopId: number,
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  options: OrderOptions,
): Promise<{ outcome: Applied; eventId: string }> {
  const { db } = ctx;
  const credentials = await gatewayCredentials(db, options.payments.secrets, shopId, provider);
  if (!credentials)
    throw new NotFoundError('Payment gateway', [`provider: ${provider} is not configured in this shop`]);
  let outcome: CallbackOutcome;
  try {
    outcome = hostedGateways[provider].readCallback(credentials, rawBody, headers, currencyDigits);
  } catch (err) {
    if (err instanceof SignatureError)
      throw new ValidationError([`signature: ${err.message}`], 'The callback signature is not valid.');
    throw err;
  }
  const key = { shop_id: shopId, provider, event_id: outcome.eventId };
  const invoiceId = outcome.kind === 'ignored' ? null : outcome.invoiceId;
  const claim = await payments.claimPaymentEvent(
    db,
    {
      ...key,
      invoice_id: invoiceId === null ? null : invoiceId.slice(0, 64),
      type: outcome.type.slice(0, 100),
      outcome: 'handling',
      created_at: ctx.clock.now(),
    },
    STALE_CLAIM_MS,
  );
  if (claim === 'settled') return { outcome: 'duplicate', eventId: outcome.eventId };
  if (claim === 'in-flight')
    // Not a 2xx: should the handling under way fail, the provider's retry must still come.
    throw new ConflictError('This event is being handled by another request; the provider will retry it.', [
      'event: is being handled',
    ]);
  try {
    const applied = await applyOutcome(ctx, shopId, provider, outcome, options);
    await payments.settlePaymentEvent(db, key, applied);
    return { outcome: applied, eventId: outcome.eventId };
  } catch (err) {
    await payments.releasePaymentEvent(db, key);
    throw err;
  }
}

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
  const now = tx.clock.now();
  const { shop_id: shopId } = invoice;
  if (!(await payments.finishRefund(trx, shopId, refund.id, providerRefundId, refund.method))) return;
  const shop = await findShop(trx, shopId);
  const local = inShopCurrency(refund.amount, invoice.currency, shop.currency);
  if (refund.method === 'balance')
    await customers.changeBalance(
      trx,
      shopId,
      invoice.customer_id,
      { delta: local, kind: 'refund', invoiceId: invoice.id, note: refund.reason ?? `Refund of ${invoice.id}` },
      now,
    );
  await invoiceRefunded(tx, invoice, { ...refund, localAmount: local }, now);
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
  await writeTransaction(ctx, async ({ db: trx }) => {
    await shareShop(trx, invoice.shop_id);
    await payments.deleteRefund(trx, invoice.shop_id, refund.id);
    await payments.releaseRefund(trx, invoice.shop_id, invoice.id, refund.amount, ctx.clock.now());
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
  options: OrderOptions,
): Promise<void> {
  const { db } = ctx;
  const invoice = await requireInvoice(db, shopId, invoiceId);
  if (invoice.status !== 'completed')
    throw new ConflictError(`Only a completed invoice can be refunded; this one is ${invoice.status}.`, [
      `status: is ${invoice.status}`,
    ]);
  const pending = (await payments.listRefunds(db, shopId, [invoiceId])).find((r) => r.status === 'pending');
  // A refund being asked of the provider right now (by another request) is left to it.
  if (pending && pending.created_at > ctx.clock.now() - staleRefundMs(options.payments))
    throw new ConflictError('Another refund of this invoice is being made; read it again in a moment.', [
      'amount: another refund of this invoice is under way',
    ]);
  if (pending) {
    // Settle the refund whose answer was lost before anything else: asked again with its own key.
    let providerRefundId: string | null;
    try {
      providerRefundId = await askProvider(db, invoice, pending, options.payments);
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
      `amount: at most ${moneyText(left, invoice.currency)} is left to refund`,
    ]);
  const method = refundMethod(invoice);
  const reason = body.reason?.trim() || null;
  const createdAt = ctx.clock.now();
  const hold = async ({ db: trx }: Context) => {
    await shareShop(trx, shopId);
    // The refund held is the work of the request's Idempotency-Key: a retry after a crash answers the invoice, it refunds no more.
    await recordIdempotentWork(trx, invoiceId);
    if (!(await payments.holdRefund(trx, shopId, invoiceId, amount, createdAt)))
      throw new ConflictError('Another refund of this invoice was made meanwhile; read it again.', [
        'amount: is more than what is left to refund',
      ]);
    return payments.insertRefund(trx, {
      shop_id: shopId,
      invoice_id: invoiceId,
      amount,
      reason,
      method,
      provider_refund_id: null,
      status: 'pending',
      created_at: createdAt,
    });
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
    providerRefundId = await askProvider(db, invoice, { id: refundId, amount }, options.payments);
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

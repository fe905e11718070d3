import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  ConflictError,
  NotFoundError,
  PaymentProviderError,
  UnprocessableError,
  ValidationError,
} from '../../http/errors.js';
import { currencyDigits } from '../../schemas/currencies.js';
import { fromMinorUnits, toMinorUnits } from '../../schemas/money.js';
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
import { invoiceRefunded, writeTransaction } from './domain-events.js';
import { queueCheckoutMail } from './invoice-mail.js';
import type { InvoiceRow } from './invoices.table.js';
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

async function credentialsOf(db: Conn, context: PaymentContext, shopId: number, provider: HostedProvider) {
  return gatewayCredentials(db, context.secrets, shopId, provider);
}

/**
 * Starts the provider's payment of a new invoice of a hosted gateway (checkout calls it once the
 * invoice is written): the provider's page and id are stored on the invoice, whose expiry becomes
 * the page's (plus CALLBACK_GRACE_MS): the stock is held exactly while the buyer can pay. When the
 * provider cannot be asked, the invoice is cancelled at once (stock and coupon returned) and the
 * checkout answers 502: no order is left that could never be paid.
 */
export async function startHostedPayment(
  db: Conn,
  shopId: number,
  invoiceId: string,
  options: OrderOptions,
): Promise<void> {
  const invoice = await requireInvoice(db, shopId, invoiceId);
  if (!isHostedProvider(invoice.gateway)) return;
  const provider = invoice.gateway;
  const credentials = await credentialsOf(db, options.payments, shopId, provider);
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
        returnUrl: invoiceUrl(options.links, shop, invoiceId),
        expiresAt: invoice.expires_at,
      },
      options.payments.endpoints,
    );
  } catch (err) {
    if (!(err instanceof ProviderCallError)) throw err;
    await endUnpaid(db, shopId, invoiceId, 'cancelled');
    options.payments.log.warn({ shopId, invoiceId, provider, reason: err.detail }, 'payment could not be started');
    throw new PaymentProviderError(
      `The payment could not be started with ${gateways[provider].label}, so the order was not placed; try again, or pay another way.`,
      [`gateway: ${err.detail}`],
    );
  }
  await payments.setHostedPayment(db, shopId, invoiceId, {
    ref: started.ref,
    url: started.url,
    closesAt: started.expiresAt,
    expiresAt: started.expiresAt + CALLBACK_GRACE_MS,
  });
  // Only now: a provider that could not start the payment leaves no "how to pay" mail behind, and
  // the mail's deadline is the page's.
  await queueCheckoutMail(db, shopId, invoiceId, options.links);
}

/**
 * After a pending invoice of a hosted gateway was cancelled: closes the provider's page, so the
 * buyer cannot pay an order that no longer exists. Best effort: a failure is logged, and a
 * payment that still arrives is noted on the invoice for the owner (applyCallback).
 */
export async function closeHostedPayment(db: Conn, invoice: InvoiceRow, context: PaymentContext): Promise<void> {
  if (!isHostedProvider(invoice.gateway) || invoice.payment_ref === null) return;
  const credentials = await credentialsOf(db, context, invoice.shop_id, invoice.gateway);
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

const amountText = (minor: number, currency: string) => `${fromMinorUnits(minor, currency)} ${currency}`;

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
  db: Conn,
  invoice: InvoiceRow,
  outcome: Extract<CallbackOutcome, { kind: 'paid' }>,
  options: OrderOptions,
): Promise<Applied> {
  const { shop_id: shopId, id } = invoice;
  if (outcome.amount !== invoice.total || outcome.currency !== invoice.currency) {
    const paid = outcome.amount < 0 ? `an unknown amount` : amountText(outcome.amount, outcome.currency || '?');
    await payments.notePayment(
      db,
      shopId,
      id,
      `Paid ${paid} for an order of ${amountText(invoice.total, invoice.currency)}: not completed. ` +
        'Refund the payment at the provider, or process the order by hand.',
      invoice.status === 'pending' ? Date.now() + ATTENTION_HOLD_MS : undefined,
      outcome.reference,
    );
    return 'amount-mismatch';
  }
  if (invoice.status === 'pending') {
    try {
      await completeInvoice(db, shopId, id, options, { source: 'provider', reference: outcome.reference });
      return 'completed';
    } catch (err) {
      if (err instanceof DeliveryFailedError) {
        // Paid: the order must not expire while the owner retries the delivery.
        await payments.notePayment(
          db,
          shopId,
          id,
          'Paid; the delivery failed. Process the order again to retry it.',
          Date.now() + ATTENTION_HOLD_MS,
          outcome.reference,
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
    `Paid ${amountText(outcome.amount, outcome.currency)} after the order was ${now.status}: nothing was delivered. ` +
      'Refund the payment at the provider.',
    undefined,
    outcome.reference,
  );
  return 'paid-late';
}

async function applyOutcome(
  db: Conn,
  shopId: number,
  provider: HostedProvider,
  outcome: CallbackOutcome,
  options: OrderOptions,
): Promise<Applied> {
  if (outcome.kind === 'ignored') return 'ignored';
  // Only this shop's invoices, and only the payment started for them: a callback naming another
  // shop's invoice, or another payment, changes nothing.
  if (outcome.shopId !== shopId || outcome.invoiceId === null) return 'ignored';
  const invoice = await repo.findInvoice(db, shopId, outcome.invoiceId);
  if (!invoice || invoice.gateway !== provider || invoice.payment_ref !== outcome.ref) return 'ignored';
  switch (outcome.kind) {
    case 'paid':
      return applyPaid(db, invoice, outcome, options);
    case 'ended':
      if (invoice.status !== 'pending') return 'ignored';
      return (await endUnpaid(db, shopId, invoice.id, outcome.status)) ? outcome.status : 'ignored';
    case 'attention':
      // A late word about a payment that completed the order (a `charge:pending` after the confirmation).
      if (invoice.status === 'completed') return 'ignored';
      if (invoice.status !== 'pending') {
        await payments.notePayment(db, shopId, invoice.id, outcome.note);
        return 'noted';
      }
      await payments.notePayment(db, shopId, invoice.id, outcome.note, Date.now() + ATTENTION_HOLD_MS);
      return 'held';
  }
}

/**
 * A provider's callback for a shop (`POST /v2/public/payments/{provider}/{shopId}/webhook`): the
 * signature is checked on the raw body with the shop's webhook secret (400 when it fails; 404 when
 * the shop has not configured the provider), then the event is claimed by its id: a repeat, or one
 * arriving while the first is handled, is answered `duplicate` and changes nothing. When handling
 * fails the claim is let go, so the provider's retry is handled anew.
 */
export async function applyCallback(
  db: Conn,
  provider: HostedProvider,
  shopId: number,
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  options: OrderOptions,
): Promise<{ outcome: Applied; eventId: string }> {
  const credentials = await credentialsOf(db, options.payments, shopId, provider);
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
  const claimed = await payments.claimPaymentEvent(db, {
    ...key,
    invoice_id: invoiceId === null ? null : invoiceId.slice(0, 64),
    type: outcome.type.slice(0, 100),
    outcome: 'handling',
    created_at: Date.now(),
  });
  if (!claimed) return { outcome: 'duplicate', eventId: outcome.eventId };
  try {
    const applied = await applyOutcome(db, shopId, provider, outcome, options);
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
 * Refunds a completed invoice, in full (no amount: what is left) or in part, with a reason.
 * - `balance` orders are credited back to the buyer's store balance;
 * - card orders are refunded through Stripe (the provider's refund id is kept);
 * - crypto and manual orders are recorded: the owner sends the money (the crypto API has no refunds).
 * The amount is first held against the invoice (a conditional update: two concurrent refunds never
 * give back more than its total), then the provider is asked, then one transaction records the
 * refund, credits the balance, lowers the buyer's lifetime spend, writes `invoice.refunded` and
 * counts it in the dashboard. A provider refusal gives the hold back and answers 502.
 */
export async function refundInvoice(
  db: Conn,
  shopId: number,
  invoiceId: string,
  body: { amount?: number | null | undefined; reason?: string | null | undefined },
  options: OrderOptions,
): Promise<void> {
  const invoice = await requireInvoice(db, shopId, invoiceId);
  if (invoice.status !== 'completed')
    throw new ConflictError(`Only a completed invoice can be refunded; this one is ${invoice.status}.`, [
      `status: is ${invoice.status}`,
    ]);
  const left = invoice.total - invoice.refunded;
  if (left <= 0)
    throw new ConflictError('This invoice is refunded in full already.', ['amount: nothing is left to refund']);
  const amount = body.amount == null ? left : toMinorUnits(body.amount, invoice.currency, 'amount');
  if (amount > left)
    throw new UnprocessableError('The refund is more than what is left to refund.', [
      `amount: at most ${amountText(left, invoice.currency)} is left to refund`,
    ]);
  const method = refundMethod(invoice);
  const reason = body.reason?.trim() || null;
  const createdAt = Date.now();
  // Hold the amount and write the refund as pending: from here no other refund can take it.
  const refundId = await writeTransaction(db, async (trx) => {
    await shareShop(trx, shopId);
    if (!(await payments.holdRefund(trx, shopId, invoiceId, amount)))
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
  });

  let providerRefundId: string | null = null;
  if (method === 'provider') {
    const provider = invoice.gateway as HostedProvider;
    try {
      const credentials = await credentialsOf(db, options.payments, shopId, provider);
      if (!credentials) throw new ProviderCallError(`${provider} is not configured, or its secrets cannot be read`);
      providerRefundId = await hostedGateways[provider].refund(
        credentials,
        { reference: invoice.payment_reference!, amount, invoiceId, key: `shopd-refund-${shopId}-${refundId}` },
        options.payments.endpoints,
      );
    } catch (err) {
      await writeTransaction(db, async (trx) => {
        await shareShop(trx, shopId);
        await payments.deleteRefund(trx, shopId, refundId);
        await payments.releaseRefund(trx, shopId, invoiceId, amount);
      });
      if (err instanceof ProviderCallError)
        throw new PaymentProviderError(`${gateways[provider].label} did not make the refund; nothing was refunded.`, [
          `gateway: ${err.detail}`,
        ]);
      throw err;
    }
  }

  // A provider without a refund API (the crypto charges API) answers no refund id: the refund is
  // recorded, and the owner sends the money.
  const made = method === 'provider' && providerRefundId === null ? 'recorded' : method;
  await writeTransaction(db, async (trx) => {
    await shareShop(trx, shopId);
    const now = Date.now();
    await payments.finishRefund(trx, shopId, refundId, providerRefundId, made);
    if (method === 'balance')
      await customers.changeBalance(
        trx,
        shopId,
        invoice.customer_id,
        { delta: amount, kind: 'refund', invoiceId, note: reason ?? `Refund of ${invoiceId}` },
        now,
      );
    await invoiceRefunded(trx, invoice, { id: refundId, amount, reason, method: made, createdAt }, now);
  });
}

import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, PaymentProviderError, ValidationError } from '../../http/errors.js';
import { currencyDigits } from '../../schemas/currencies.js';
import type { SecretBox } from '../../security/secret-box.js';
import { recordDispute } from '../disputes/index.js';
import {
  type CallbackOutcome,
  EventShapeError,
  gateways,
  hostedGateways,
  ProviderCallError,
  type ProviderEndpoints,
  SignatureError,
} from '../gateways/index.js';
import type { InvoiceRow, OrderOptions, PaidInvoice, PaymentPort } from '../orders/index.js';
import * as orders from '../orders/index.js';
import { gatewayCredentials } from '../settings/index.js';
import { findShop, type HostedProvider, isHostedProvider } from '../shops/index.js';
import * as events from './events.repository.js';

/**
 * The payments of orders: a hosted payment started at checkout, provider callbacks applied once,
 * and refunds. Whatever a provider says is applied through the orders module's lifecycle
 * (`completeInvoice`, `endUnpaid`, which stay the only writers of an invoice's status: their
 * conditional moves are what makes a completion happen once, whichever of two concurrent
 * callbacks, a cancel or an expiry comes first) and its payment record (`notePayment`, the
 * refund operations). Orders reach this module only through the PaymentPort (`paymentPort`).
 */

/** What the payment code needs: the key that opens the gateways' secrets, the providers' APIs, a log for what fails quietly. */
export interface PaymentContext {
  secrets: SecretBox;
  endpoints: ProviderEndpoints;
  log: { warn(obj: object, msg: string): void };
}

/** The payments module as orders see it (src/app.ts gives it to them in `app.orders`). */
export function paymentPort(payments: PaymentContext): PaymentPort {
  return {
    startHostedPayment: (ctx, shopId, invoiceId) => startHostedPayment(ctx, shopId, invoiceId, payments),
    closeHostedPayment: (ctx, invoice) => closeHostedPayment(ctx, invoice, payments),
    closeLapsedPages: (ctx) => closeLapsedPages(ctx, payments),
  };
}

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
 * the page's or the order's hold's (the shop's `holdMinutesHosted`), whichever ends first, plus
 * CALLBACK_GRACE_MS: the stock is held exactly while the buyer can pay. When the
 * provider cannot be asked, the invoice is cancelled at once (stock and coupon returned) and the
 * checkout answers 502: no order is left that could never be paid.
 */
async function startHostedPayment(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  payments: PaymentContext,
): Promise<void> {
  const { db } = ctx;
  const invoice = await orders.requireInvoice(db, shopId, invoiceId);
  if (!isHostedProvider(invoice.gateway)) return;
  const provider = invoice.gateway;
  const credentials = await gatewayCredentials(db, payments.secrets, shopId, provider);
  let started: Awaited<ReturnType<(typeof hostedGateways)[HostedProvider]['start']>>;
  try {
    if (!credentials) throw new ProviderCallError(`${provider} is not configured, or its secrets cannot be read`);
    const [shop, lines] = await Promise.all([findShop(db, shopId), orders.orderedLines(db, shopId, invoiceId)]);
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
        description: lines.map((l) => `${l.title} × ${l.quantity}`).join(', '),
        returnUrl: orders.invoiceUrl(ctx.config, shop, invoiceId),
        expiresAt: invoice.expires_at,
      },
      payments.endpoints,
    );
  } catch (err) {
    if (!(err instanceof ProviderCallError)) throw err;
    await orders.endUnpaid(ctx, shopId, invoiceId, 'cancelled');
    payments.log.warn({ shopId, invoiceId, provider, reason: err.detail }, 'payment could not be started');
    // The provider's words are for the owner (the log has them): they may name the shop's key or account.
    throw new PaymentProviderError(
      `The payment could not be started with ${gateways[provider].label}, so the order was not placed; try again, or pay another way.`,
      [`gateway: ${gateways[provider].label} refused or did not answer`],
    );
  }
  // A page may stay open past the order's hold (Stripe's sessions stay open 30 minutes at least):
  // the buyer is told the hold's end, and the invoice-expiry job closes such a page once the order
  // has expired (closeLapsedPages).
  const closesAt = Math.min(started.expiresAt, invoice.expires_at);
  // The "how to pay" mail goes with it: a provider that could not start the payment leaves none behind.
  await orders.attachHostedPayment(ctx, shopId, invoiceId, {
    ref: started.ref,
    url: started.url,
    closesAt,
    expiresAt: closesAt + CALLBACK_GRACE_MS,
    pageEndsAt: started.expiresAt > closesAt + CALLBACK_GRACE_MS ? started.expiresAt : null,
  });
}

/**
 * After a pending invoice of a hosted gateway was cancelled: closes the provider's page, so the
 * buyer cannot pay an order that no longer exists. Best effort: a failure is logged, and a
 * payment that still arrives is noted on the invoice for the owner (applyCallback).
 */
async function closeHostedPayment(ctx: Context, invoice: InvoiceRow, context: PaymentContext): Promise<void> {
  if (!isHostedProvider(invoice.gateway) || invoice.payment_ref === null) return;
  const credentials = await gatewayCredentials(ctx.db, context.secrets, invoice.shop_id, invoice.gateway);
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

/** How many lapsed pages closeLapsedPages closes in one pass. */
const LAPSED_PAGE_BATCH = 100;

/**
 * Closes the provider pages still open after their orders expired (a shop's hold shorter than
 * the provider's minimum page lifetime), a batch per pass of the invoice-expiry job. Best effort,
 * as after a cancellation: a page that cannot be closed is logged and forgotten (it closes by
 * itself at its end), and a payment that still arrives is noted on the invoice for the owner to
 * refund (applyPaid's `paid-late`).
 */
async function closeLapsedPages(ctx: Context, payments: PaymentContext): Promise<number> {
  const lapsed = await orders.lapsedPages(ctx, LAPSED_PAGE_BATCH);
  for (const invoice of lapsed) {
    await closeHostedPayment(ctx, invoice, payments);
    await orders.forgetLapsedPage(ctx, invoice);
  }
  return lapsed.length;
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
  | 'delivery-failed'
  | 'disputed'
  | 'dispute-updated';

async function applyPaid(
  ctx: Context,
  invoice: PaidInvoice,
  outcome: Extract<CallbackOutcome, { kind: 'paid' }>,
  options: OrderOptions,
): Promise<Applied> {
  const { shop_id: shopId, id } = invoice;
  if (outcome.amount !== invoice.total || outcome.currency !== invoice.currency) {
    const paid = outcome.amount < 0 ? `an unknown amount` : orders.moneyText(outcome.amount, outcome.currency || '?');
    await orders.notePayment(
      ctx,
      shopId,
      id,
      `Paid ${paid} for an order of ${orders.moneyText(invoice.total, invoice.currency)} (payment ${outcome.reference}): ` +
        'not completed. Refund the payment at the provider, or process the order by hand.',
      invoice.status === 'pending'
        ? { onlyIf: ['pending'], holdUntil: ctx.clock.now() + ATTENTION_HOLD_MS }
        : { onlyIf: [invoice.status] },
    );
    return 'amount-mismatch';
  }
  if (invoice.status === 'pending') {
    try {
      await orders.completeInvoice(ctx, shopId, id, options, { source: 'provider', reference: outcome.reference });
      return 'completed';
    } catch (err) {
      if (err instanceof orders.DeliveryFailedError) {
        // Paid: the order must not expire while the owner retries the delivery.
        await orders.notePayment(ctx, shopId, id, 'Paid; the delivery failed. Process the order again to retry it.', {
          onlyIf: ['pending'],
          holdUntil: ctx.clock.now() + ATTENTION_HOLD_MS,
          providerReference: outcome.reference,
        });
        return 'delivery-failed';
      }
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  // Not pending (any more): completed by another callback or the owner, or ended before the money came.
  const now = await orders.requireInvoice(ctx.db, shopId, id);
  if (now.status === 'completed') return 'already-completed';
  await orders.notePayment(
    ctx,
    shopId,
    id,
    `Paid ${orders.moneyText(outcome.amount, outcome.currency)} after the order was ${now.status} (payment ` +
      `${outcome.reference}): nothing was delivered. Refund the payment at the provider.`,
    { onlyIf: ['expired', 'cancelled'] },
  );
  return 'paid-late';
}

async function applyOutcome(
  ctx: Context,
  shopId: number,
  provider: HostedProvider,
  outcome: CallbackOutcome,
  options: OrderOptions,
  payments: PaymentContext,
): Promise<Applied> {
  if (outcome.kind === 'ignored') return 'ignored';
  // A dispute names the payment, not shopd's metadata: the order is the one it paid, in this shop.
  if (outcome.kind === 'dispute') return recordDispute(ctx, payments, shopId, provider, outcome.dispute);
  // Only this shop's invoices, and only the payment started for them: a callback naming another
  // shop's invoice, or another payment, changes nothing.
  if (outcome.shopId !== shopId || outcome.invoiceId === null) return 'ignored';
  const invoice = await orders.invoiceOfPayment(ctx.db, shopId, {
    invoiceId: outcome.invoiceId,
    provider,
    ref: outcome.ref,
  });
  if (!invoice) return 'ignored';
  switch (outcome.kind) {
    case 'paid':
      return applyPaid(ctx, invoice, outcome, options);
    case 'ended':
      if (invoice.status !== 'pending') return 'ignored';
      return (await orders.endUnpaid(ctx, shopId, invoice.id, outcome.status)) ? outcome.status : 'ignored';
    case 'attention':
      // A late word about a payment that completed the order (a `charge:pending` after the confirmation).
      if (invoice.status === 'completed') return 'ignored';
      if (invoice.status !== 'pending') {
        await orders.notePayment(ctx, shopId, invoice.id, outcome.note, { onlyIf: ['expired', 'cancelled'] });
        return 'noted';
      }
      await orders.notePayment(ctx, shopId, invoice.id, outcome.note, {
        onlyIf: ['pending'],
        holdUntil: ctx.clock.now() + ATTENTION_HOLD_MS,
      });
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
  payments: PaymentContext,
  options: OrderOptions,
): Promise<{ outcome: Applied; eventId: string }> {
  const { db } = ctx;
  const credentials = await gatewayCredentials(db, payments.secrets, shopId, provider);
  if (!credentials)
    throw new NotFoundError('Payment gateway', [`provider: ${provider} is not configured in this shop`]);
  let outcome: CallbackOutcome;
  try {
    outcome = hostedGateways[provider].readCallback(credentials, rawBody, headers, currencyDigits);
  } catch (err) {
    if (err instanceof EventShapeError)
      throw new ValidationError([`body: ${err.message}`], 'The callback is not an event shopd can read.');
    if (err instanceof SignatureError)
      throw new ValidationError([`signature: ${err.message}`], 'The callback signature is not valid.');
    throw err;
  }
  const key = { shop_id: shopId, provider, event_id: outcome.eventId };
  const invoiceId = outcome.kind === 'ignored' || outcome.kind === 'dispute' ? null : outcome.invoiceId;
  const claim = await events.claimPaymentEvent(
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
    const applied = await applyOutcome(ctx, shopId, provider, outcome, options, payments);
    await events.settlePaymentEvent(db, key, applied);
    return { outcome: applied, eventId: outcome.eventId };
  } catch (err) {
    await events.releasePaymentEvent(db, key);
    throw err;
  }
}

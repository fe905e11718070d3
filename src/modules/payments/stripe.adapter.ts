import Stripe from 'stripe';
import {
  type CallbackOutcome,
  type Credentials,
  type GatewayAdapter,
  type HostedGateway,
  ProviderCallError,
  type ProviderEndpoints,
  SignatureError,
} from './adapter.js';

/**
 * `cardconnect`: card payments through Stripe Checkout, with the official `stripe` library. One
 * Checkout Session per invoice (its id is the payment's `ref`), the invoice id in its metadata;
 * `checkout.session.completed` (paid) and `async_payment_succeeded` complete the invoice,
 * `expired` and `async_payment_failed` end it. Callbacks are checked by the library's
 * `constructEvent` on the raw body with the shop's `webhookSecret`; refunds go through the
 * library, by PaymentIntent.
 */

/** Sessions stay open between 30 minutes and 24 hours (Stripe's bounds for `expires_at`). */
export const STRIPE_MIN_OPEN_MS = 30 * 60_000;
export const STRIPE_MAX_OPEN_MS = 24 * 60 * 60_000;

function client(credentials: Credentials, endpoints: ProviderEndpoints): Stripe {
  const api = new URL(endpoints.stripeApiUrl);
  const protocol = api.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(credentials.secretKey!, {
    host: api.hostname,
    port: api.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: endpoints.timeoutMs,
    maxNetworkRetries: 1,
    appInfo: { name: 'shopd' },
  });
}

/** What the owner may read of a failed call: Stripe's own message, never the request. */
function callError(what: string, err: unknown): ProviderCallError {
  const message = err instanceof Stripe.errors.StripeError ? err.message : 'no answer';
  return new ProviderCallError(`Stripe refused or did not answer the ${what}: ${message}`, { cause: err });
}

const idOf = (value: string | { id: string } | null): string | null =>
  value === null ? null : typeof value === 'string' ? value : value.id;

function sessionFacts(event: Stripe.Event, session: Stripe.Checkout.Session) {
  const shopId = Number(session.metadata?.shopId);
  return {
    eventId: event.id,
    type: event.type,
    ref: session.id,
    shopId: Number.isSafeInteger(shopId) ? shopId : null,
    invoiceId: session.metadata?.invoiceId ?? session.client_reference_id ?? null,
  };
}

function paid(event: Stripe.Event, session: Stripe.Checkout.Session): CallbackOutcome {
  const facts = sessionFacts(event, session);
  // A session paid by a delayed method completes unpaid; its async_payment_succeeded follows.
  if (session.payment_status === 'unpaid')
    return { kind: 'ignored', eventId: event.id, type: event.type, why: 'the payment is not made yet' };
  return {
    ...facts,
    kind: 'paid',
    amount: session.amount_total ?? -1,
    currency: (session.currency ?? '').toUpperCase(),
    reference: idOf(session.payment_intent) ?? session.id,
  };
}

const hosted: HostedGateway = {
  async start(credentials, order, endpoints) {
    const now = Date.now();
    const closes = Math.min(Math.max(order.expiresAt, now + STRIPE_MIN_OPEN_MS + 60_000), now + STRIPE_MAX_OPEN_MS);
    const metadata = { invoiceId: order.invoiceId, shopId: String(order.shopId) };
    try {
      const session = await client(credentials, endpoints).checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: order.currency.toLowerCase(),
                unit_amount: order.amount,
                product_data: { name: order.title, description: order.description.slice(0, 500) || undefined },
              },
            },
          ],
          customer_email: order.customerEmail,
          client_reference_id: order.invoiceId,
          metadata,
          payment_intent_data: { metadata },
          success_url: order.returnUrl,
          cancel_url: order.returnUrl,
          expires_at: Math.floor(closes / 1000),
        },
        // One session per invoice, however often this is retried.
        { idempotencyKey: `shopd-invoice-${order.shopId}-${order.invoiceId}` },
      );
      if (!session.url) throw new ProviderCallError('Stripe answered a Checkout Session without a payment page');
      return { ref: session.id, url: session.url, expiresAt: session.expires_at * 1000 };
    } catch (err) {
      throw err instanceof ProviderCallError ? err : callError('new Checkout Session', err);
    }
  },

  readCallback(credentials, rawBody, headers) {
    const signature = headers['stripe-signature'];
    if (typeof signature !== 'string') throw new SignatureError('the Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      // The library only checks the signature here: no call to Stripe is made.
      event = new Stripe(credentials.secretKey!).webhooks.constructEvent(
        rawBody,
        signature,
        credentials.webhookSecret!,
      );
    } catch (err) {
      throw new SignatureError(err instanceof Error ? err.message : 'the signature does not match');
    }
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        return paid(event, event.data.object);
      case 'checkout.session.expired':
        return { ...sessionFacts(event, event.data.object), kind: 'ended', status: 'expired' };
      case 'checkout.session.async_payment_failed':
        return { ...sessionFacts(event, event.data.object), kind: 'ended', status: 'cancelled' };
      default:
        return { kind: 'ignored', eventId: event.id, type: event.type, why: 'shopd does not act on this event' };
    }
  },

  async refund(credentials, payment, endpoints) {
    try {
      const refund = await client(credentials, endpoints).refunds.create(
        { payment_intent: payment.reference, amount: payment.amount, metadata: { invoiceId: payment.invoiceId } },
        { idempotencyKey: payment.key },
      );
      return refund.id;
    } catch (err) {
      throw callError('refund', err);
    }
  },

  async close(credentials, ref, endpoints) {
    try {
      await client(credentials, endpoints).checkout.sessions.expire(ref);
    } catch (err) {
      throw callError('closing of the Checkout Session', err);
    }
  },
};

export const stripeAdapter: GatewayAdapter = {
  label: 'Stripe',
  instructions: ({ amount }) => `Pay ${amount} by card on Stripe's secure payment page.`,
  hosted,
};

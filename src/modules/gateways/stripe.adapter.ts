import Stripe from 'stripe';
import {
  type CallbackOutcome,
  type Credentials,
  type DisputeFacts,
  EventShapeError,
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

/**
 * What the owner may read of a failed call: Stripe's own message, never the request. A refusal
 * (an invalid request, a card or permission error) is definite; anything else (no answer, a
 * server error, a rate limit) may have been carried out.
 */
function callError(what: string, err: unknown): ProviderCallError {
  const message = err instanceof Stripe.errors.StripeError ? err.message : 'no answer';
  const refused =
    err instanceof Stripe.errors.StripeInvalidRequestError ||
    err instanceof Stripe.errors.StripeCardError ||
    err instanceof Stripe.errors.StripePermissionError ||
    err instanceof Stripe.errors.StripeAuthenticationError;
  return new ProviderCallError(`Stripe refused or did not answer the ${what}: ${message}`, {
    cause: err,
    unknown: !refused,
  });
}

/**
 * Stripe's minor units are not always ISO 4217's: zero-decimal currencies (MGA has two digits in
 * ISO, none at Stripe), ISK and UGX (none in ISO, two at Stripe, in whole units), and the
 * three-decimal ones, whose last digit Stripe wants 0. Stripe's documented lists.
 */
const STRIPE_ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const STRIPE_THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);
const stripeDigits = (currency: string) =>
  STRIPE_ZERO_DECIMAL.has(currency) ? 0 : STRIPE_THREE_DECIMAL.has(currency) ? 3 : 2;

/** ISO minor units → Stripe's amount, or null when Stripe cannot charge exactly that. */
export function toStripeAmount(minor: number, currency: string, isoDigits: number): number | null {
  const digits = stripeDigits(currency);
  const amount = digits >= isoDigits ? minor * 10 ** (digits - isoDigits) : minor / 10 ** (isoDigits - digits);
  if (!Number.isSafeInteger(amount)) return null;
  if (STRIPE_THREE_DECIMAL.has(currency) && amount % 10 !== 0) return null;
  return amount;
}

/** Stripe's amount → ISO minor units, or null when it has no exact value in them. */
export function fromStripeAmount(amount: number, currency: string, isoDigits: number): number | null {
  const digits = stripeDigits(currency);
  const minor = isoDigits >= digits ? amount * 10 ** (isoDigits - digits) : amount / 10 ** (digits - isoDigits);
  return Number.isSafeInteger(minor) ? minor : null;
}

const idOf = (value: string | { id: string } | null): string | null =>
  value === null ? null : typeof value === 'string' ? value : value.id;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string => typeof value === 'string' && value !== '';
/** An id, or an expanded object carrying one. */
const isIdOrObject = (value: unknown) => isId(value) || (isObject(value) && isId(value.id));
const optional = (value: unknown, check: (v: unknown) => boolean) =>
  value === undefined || value === null || check(value);

/**
 * A signed event is still only as good as its shape: a body Stripe never sends (no type, no
 * object, an id that is not a string) is refused with EventShapeError (400), as the crypto
 * adapter does, rather than failing further in (500). Only what shopd reads is checked.
 */
function checkedEvent(event: Stripe.Event): Stripe.Event {
  const raw: unknown = event;
  if (!isObject(raw)) throw new EventShapeError('the signed body is not an event (not an object)');
  if (!isId(raw.id) || !isId(raw.type)) throw new EventShapeError('the signed body is not an event (no id or type)');
  if (!isObject(raw.data) || !isObject(raw.data.object)) throw new EventShapeError('the event has no data.object');
  const object = raw.data.object;
  if (raw.type.startsWith('checkout.session.')) {
    const fine =
      isId(object.id) &&
      optional(object.metadata, isObject) &&
      optional(object.client_reference_id, (v) => typeof v === 'string') &&
      optional(object.currency, (v) => typeof v === 'string') &&
      optional(object.amount_total, (v) => typeof v === 'number') &&
      optional(object.payment_intent, isIdOrObject);
    if (!fine)
      throw new EventShapeError('the Checkout Session of the event lacks its id or has fields of the wrong type');
  }
  if (raw.type.startsWith('charge.dispute.')) {
    const fine =
      isId(object.id) &&
      isIdOrObject(object.payment_intent) &&
      typeof object.status === 'string' &&
      typeof object.reason === 'string' &&
      typeof object.amount === 'number' &&
      typeof object.currency === 'string';
    if (!fine)
      throw new EventShapeError(
        'the dispute of the event lacks its id, payment_intent, status, reason, amount or currency',
      );
  }
  return event;
}

/** Stripe's dispute statuses as shopd's four (an inquiry, `warning_*`, counts as the dispute it may become). */
function disputeStatus(status: string): DisputeFacts['status'] {
  switch (status) {
    case 'won':
    case 'warning_closed':
    case 'prevented':
      return 'won';
    case 'lost':
      return 'lost';
    case 'under_review':
    case 'warning_under_review':
      return 'under_review';
    default:
      return 'needs_response';
  }
}

function disputed(
  event: Stripe.Event,
  dispute: Stripe.Dispute,
  digitsOf: (currency: string) => number,
): CallbackOutcome {
  const currency = dispute.currency.toUpperCase();
  let amount: number | null = null;
  try {
    amount = fromStripeAmount(dispute.amount, currency, digitsOf(currency));
  } catch {
    // A currency shopd does not know: recorded without an amount.
  }
  return {
    kind: 'dispute',
    eventId: event.id,
    type: event.type,
    dispute: {
      id: dispute.id,
      reference: idOf(dispute.payment_intent)!,
      status: disputeStatus(dispute.status),
      reason: dispute.reason,
      amount: amount ?? -1,
      currency,
    },
  };
}

function sessionFacts(event: Stripe.Event, session: Stripe.Checkout.Session) {
  const shopId = Number(session.metadata?.shopId);
  return {
    eventId: event.id,
    type: event.type,
    ref: session.id,
    shopId: Number.isSafeInteger(shopId) ? shopId : null,
    // Metadata is whatever was set at Stripe: only a string names an invoice.
    invoiceId:
      (typeof session.metadata?.invoiceId === 'string' ? session.metadata.invoiceId : null) ??
      session.client_reference_id ??
      null,
  };
}

function paid(
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
  digitsOf: (currency: string) => number,
): CallbackOutcome {
  const facts = sessionFacts(event, session);
  // A session paid by a delayed method (a bank debit) completes unpaid; its async_payment_succeeded
  // follows, days later: the order is held for it rather than left to expire.
  if (session.payment_status === 'unpaid')
    return {
      ...facts,
      kind: 'attention',
      note: 'Paid by a method that settles later: waiting for Stripe to confirm the payment.',
    };
  const currency = (session.currency ?? '').toUpperCase();
  let amount: number | null = null;
  try {
    amount =
      session.amount_total === null ? null : fromStripeAmount(session.amount_total, currency, digitsOf(currency));
  } catch {
    // A currency shopd does not know: no amount to compare, so no order of shopd's matches it.
  }
  return {
    ...facts,
    kind: 'paid',
    amount: amount ?? -1,
    currency,
    reference: idOf(session.payment_intent) ?? session.id,
  };
}

const hosted: HostedGateway = {
  async start(credentials, order, endpoints) {
    const now = Date.now();
    const closes = Math.min(Math.max(order.expiresAt, now + STRIPE_MIN_OPEN_MS + 60_000), now + STRIPE_MAX_OPEN_MS);
    const metadata = { invoiceId: order.invoiceId, shopId: String(order.shopId) };
    const amount = toStripeAmount(order.amount, order.currency, order.digits);
    if (amount === null)
      throw new ProviderCallError(`Stripe cannot charge exactly ${order.amount} minor units of ${order.currency}`);
    try {
      const session = await client(credentials, endpoints).checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: order.currency.toLowerCase(),
                unit_amount: amount,
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

  readCallback(credentials, rawBody, headers, digitsOf) {
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
    event = checkedEvent(event);
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        return paid(event, event.data.object, digitsOf);
      case 'checkout.session.expired':
        return { ...sessionFacts(event, event.data.object), kind: 'ended', status: 'expired' };
      case 'checkout.session.async_payment_failed':
        return { ...sessionFacts(event, event.data.object), kind: 'ended', status: 'cancelled' };
      case 'charge.dispute.created':
      case 'charge.dispute.updated':
      case 'charge.dispute.closed':
      case 'charge.dispute.funds_withdrawn':
      case 'charge.dispute.funds_reinstated':
        return disputed(event, event.data.object, digitsOf);
      default:
        return { kind: 'ignored', eventId: event.id, type: event.type, why: 'shopd does not act on this event' };
    }
  },

  async refund(credentials, payment, endpoints) {
    const amount = toStripeAmount(payment.amount, payment.currency, payment.digits);
    if (amount === null)
      throw new ProviderCallError(`Stripe cannot refund exactly ${payment.amount} minor units of ${payment.currency}`);
    try {
      const refund = await client(credentials, endpoints).refunds.create(
        { payment_intent: payment.reference, amount, metadata: { invoiceId: payment.invoiceId } },
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

  /**
   * A secret or restricted key (`sk_…`, `rk_…`) that may list Checkout Sessions, which is what
   * shopd does with it (it creates and expires them). A publishable key (`pk_…`) cannot, and is
   * refused without asking Stripe.
   */
  credentialCheck: {
    field: 'secretKey',
    async run(credentials, endpoints) {
      if (!/^(sk|rk)_(live|test)_\w+$/.test(credentials.secretKey ?? ''))
        throw new ProviderCallError(
          'a Stripe secret key starts with sk_live_ or sk_test_ (rk_ for a restricted key); the publishable pk_ key cannot take payments',
        );
      try {
        await client(credentials, endpoints).checkout.sessions.list({ limit: 1 });
      } catch (err) {
        throw callError('check of the secret key', err);
      }
    },
  },

  async submitDisputeEvidence(credentials, disputeId, evidence, endpoints) {
    try {
      await client(credentials, endpoints).disputes.update(disputeId, { evidence, submit: true });
    } catch (err) {
      throw callError('submission of the dispute evidence', err);
    }
  },
};

export const stripeAdapter: GatewayAdapter = {
  label: 'Stripe',
  instructions: ({ amount }) => `Pay ${amount} by card on Stripe's secure payment page.`,
  hosted,
};

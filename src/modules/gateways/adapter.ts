/**
 * One interface for every gateway (GatewayAdapter): how the buyer is told to pay, and for the
 * providers that take money on their own page and call back (HostedGateway): start a payment for
 * an invoice, check and read a callback, refund. Adapters talk to the provider and nothing else:
 * they know no invoice state, no database. The payments module applies what they read
 * (payments/payment.service.ts), through the orders module's lifecycle.
 */

/** Where the providers' APIs are: their own by default; a local double in tests (PAYMENTS_*_API_URL). */
export interface ProviderEndpoints {
  /** Stripe's API base, e.g. https://api.stripe.com. */
  stripeApiUrl: string;
  /** The crypto checkout's API base, e.g. https://api.commerce.coinbase.com. */
  cryptoApiUrl: string;
  /** How long one call to a provider may take. */
  timeoutMs: number;
}

/** A gateway's settings, secrets opened (settings/payment-settings.ts `gatewayCredentials`). */
export type Credentials = Record<string, string>;

/** What a provider needs to take the payment of one invoice. */
export interface PaymentOrder {
  shopId: number;
  invoiceId: string;
  /** Minor units of `currency`. */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** Decimal digits of the currency (2 for USD, 0 for JPY). */
  digits: number;
  customerEmail: string;
  /** Shown on the provider's page: the shop's name and what is bought. */
  title: string;
  description: string;
  /** The invoice page, where the provider sends the buyer back. */
  returnUrl: string;
  /** When the invoice stops holding its stock (epoch ms). */
  expiresAt: number;
}

/** A payment started at the provider: its id, the page the buyer pays on, and when that page closes. */
export interface StartedPayment {
  ref: string;
  url: string;
  expiresAt: number;
}

interface CallbackFacts {
  /** The provider's event id: the key a callback is applied once by. */
  eventId: string;
  /** The provider's event type, as sent. */
  type: string;
}

interface PaymentFacts extends CallbackFacts {
  /** The shop and invoice the payment was started for (from the metadata shopd sent). */
  shopId: number | null;
  invoiceId: string | null;
  /** The provider's id of the payment started (StartedPayment.ref). */
  ref: string;
}

/** What a callback says, once its signature is checked. */
export type CallbackOutcome =
  /** The money arrived: `amount` minor units of `currency`; `reference` names the payment at the provider. */
  | (PaymentFacts & { kind: 'paid'; amount: number; currency: string; reference: string })
  /** The payment will not come: the page expired, or the payment failed. */
  | (PaymentFacts & { kind: 'ended'; status: 'expired' | 'cancelled' })
  /** Something the owner must look at (an underpayment, a payment seen but not yet confirmed): the invoice is held. */
  | (PaymentFacts & { kind: 'attention'; note: string })
  /** An event shopd does not act on. */
  | (CallbackFacts & { kind: 'ignored'; why: string })
  /**
   * A dispute (chargeback) opened, changed or closed about the payment `reference` (the payment
   * record's reference, e.g. Stripe's PaymentIntent): no metadata of shopd's comes with it.
   */
  | (CallbackFacts & { kind: 'dispute'; dispute: DisputeFacts });

/** What a provider says of a dispute; `amount` in ISO minor units of `currency` (-1 when it has no exact value). */
export interface DisputeFacts {
  id: string;
  reference: string;
  status: 'needs_response' | 'under_review' | 'won' | 'lost';
  reason: string;
  amount: number;
  currency: string;
}

/** The callback's signature is missing or wrong: nothing in it can be believed. */
export class SignatureError extends Error {}

/** The callback is signed but is not an event of the shape the provider documents (no type, no object, no ids). */
export class EventShapeError extends SignatureError {}

/**
 * The provider refused a call or could not be reached; `detail` is for the owner and the log (it
 * may quote the provider), not for buyers. `unknown`: the call may have been carried out (a
 * timeout, a lost connection, a server error), so it must be asked again with the same
 * idempotency key, never given up as "not done".
 */
export class ProviderCallError extends Error {
  constructor(
    readonly detail: string,
    options?: { cause?: unknown; unknown?: boolean },
  ) {
    super(detail, options);
    this.unknown = options?.unknown ?? false;
  }
  readonly unknown: boolean;
}

/** What every gateway does: tell the buyer how to pay. Hosted ones also take the money themselves. */
export interface GatewayAdapter {
  /** The provider's name as the owner knows it. */
  label: string;
  /**
   * How the buyer pays `amount` (with its currency), quoting `reference` (the order's payment reference), from the
   * gateway's public settings (a handle, an e-mail, a cashtag; never its secrets).
   */
  instructions(payment: { amount: string; reference: string; fields: Record<string, string> }): string;
  /** The provider takes the money on its own page and calls back (cardconnect, cryptocommerce). */
  hosted?: HostedGateway;
}

/** A provider that takes the money on its own page: start, callbacks, refunds. */
export interface HostedGateway {
  start(credentials: Credentials, order: PaymentOrder, endpoints: ProviderEndpoints): Promise<StartedPayment>;
  /** Checks the signature over the raw body (SignatureError) and reads what happened. */
  readCallback(
    credentials: Credentials,
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
    digitsOf: (currency: string) => number,
  ): CallbackOutcome;
  /**
   * Refunds `amount` minor units of the payment `reference`; answers the provider's refund id, or
   * null when the provider has no refund API (the refund is then recorded, and made by the owner).
   * `key` is the same for retries of one refund (the provider's idempotency key).
   */
  refund(
    credentials: Credentials,
    payment: { reference: string; amount: number; currency: string; digits: number; invoiceId: string; key: string },
    endpoints: ProviderEndpoints,
  ): Promise<string | null>;
  /** Closes the provider's page of a payment that will not be made (the invoice was cancelled). */
  close(credentials: Credentials, ref: string, endpoints: ProviderEndpoints): Promise<void>;
  /**
   * Asks the provider whether a newly given `field` (its API key) works, before it is stored:
   * `run` throws a ProviderCallError, `unknown` when the provider did not answer.
   */
  credentialCheck?: { field: string; run(credentials: Credentials, endpoints: ProviderEndpoints): Promise<void> };
  /** Submits the evidence of a dispute (providers with a disputes API: Stripe). */
  submitDisputeEvidence?(
    credentials: Credentials,
    disputeId: string,
    evidence: Record<string, string>,
    endpoints: ProviderEndpoints,
  ): Promise<void>;
}

/** Minor units as a decimal string: 1050, 2 → "10.50"; 5, 0 → "5". */
export function decimalOf(minor: number, digits: number): string {
  if (digits === 0) return String(minor);
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${minor < 0 ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** A decimal string as minor units, or null when it has more decimals than `digits` or is not a number. */
export function minorOf(decimal: string, digits: number): number | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal.trim());
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > digits) return null;
  const value = Number(`${whole}${trimmed.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(value)) return null;
  return sign === '-' ? -value : value;
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type CallbackOutcome,
  decimalOf,
  type GatewayAdapter,
  type HostedGateway,
  minorOf,
  ProviderCallError,
  type ProviderEndpoints,
  SignatureError,
} from './adapter.js';

/**
 * `cryptocommerce`: a hosted crypto checkout with signed callbacks, on the Coinbase Commerce
 * charges API. One charge per invoice (its `code` is the payment's `ref`), priced in the shop
 * currency, the invoice id in its metadata; the buyer pays on the charge's hosted page. Callbacks
 * carry `X-CC-Webhook-Signature`, the hex HMAC-SHA256 of the raw body with the shop's
 * `webhookSecret`. `charge:confirmed` (and `charge:resolved`, the owner's resolution in the
 * provider's dashboard) completes the invoice; `charge:failed` with nothing paid ends it; an
 * underpayment, a payment seen but not yet confirmed, or one made after the charge expired holds
 * the invoice for the owner. The API has no refunds: they are recorded, and sent by the owner.
 */

const API_VERSION = '2018-03-22';

interface Money {
  amount: string;
  currency: string;
}
interface Charge {
  code: string;
  hosted_url?: string;
  expires_at?: string;
  metadata?: Record<string, unknown>;
  pricing?: { local?: Money };
  payments?: { transaction_id?: string; status?: string; value?: { local?: Money } }[];
  timeline?: { status: string; context?: string }[];
}

/** A money object as the API writes it (`{ amount: "9.99", currency: "USD" }`), or undefined. */
function moneyOf(value: unknown): Money | undefined {
  const money = value as Partial<Money> | null | undefined;
  return typeof money?.amount === 'string' && typeof money.currency === 'string'
    ? { amount: money.amount, currency: money.currency }
    : undefined;
}

async function call(endpoints: ProviderEndpoints, path: string, apiKey: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(new URL(path, endpoints.cryptoApiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cc-api-key': apiKey, 'x-cc-version': API_VERSION },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(endpoints.timeoutMs),
    });
  } catch (err) {
    throw new ProviderCallError('the crypto checkout did not answer', { cause: err, unknown: true });
  }
  const answer = (await response.json().catch(() => null)) as { data?: unknown; error?: { message?: string } } | null;
  if (!response.ok || !answer?.data) {
    const why =
      typeof answer?.error?.message === 'string' ? answer.error.message.slice(0, 200) : `HTTP ${response.status}`;
    throw new ProviderCallError(`the crypto checkout refused the call: ${why}`, { unknown: response.status >= 500 });
  }
  return answer.data;
}

/** Verifies the HMAC in constant time; the body is not parsed before. */
function verify(rawBody: Buffer, header: string | string[] | undefined, secret: string): void {
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/i.test(header))
    throw new SignatureError('the X-CC-Webhook-Signature header is missing or malformed');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  if (!timingSafeEqual(expected, Buffer.from(header, 'hex'))) throw new SignatureError('the signature does not match');
}

const hosted: HostedGateway = {
  async start(credentials, order, endpoints) {
    const charge = (await call(endpoints, '/charges', credentials.apiKey!, {
      name: order.title.slice(0, 100),
      description: order.description.slice(0, 200),
      pricing_type: 'fixed_price',
      local_price: { amount: decimalOf(order.amount, order.digits), currency: order.currency },
      metadata: { invoiceId: order.invoiceId, shopId: String(order.shopId) },
      redirect_url: order.returnUrl,
      cancel_url: order.returnUrl,
    })) as Charge;
    const closes = Date.parse(charge.expires_at ?? '');
    if (!charge.code || !charge.hosted_url || !Number.isFinite(closes))
      throw new ProviderCallError('the crypto checkout answered a charge without a code, page or expiry');
    return { ref: charge.code, url: charge.hosted_url, expiresAt: closes };
  },

  readCallback(credentials, rawBody, headers, digitsOf): CallbackOutcome {
    verify(rawBody, headers['x-cc-webhook-signature'], credentials.webhookSecret!);
    let body: { event?: { id?: unknown; type?: unknown; data?: Charge } };
    try {
      body = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new SignatureError('the signed body is not JSON');
    }
    const event = body.event;
    if (typeof event?.id !== 'string' || typeof event.type !== 'string')
      throw new SignatureError('the signed body is not an event');
    if (typeof event.data?.code !== 'string')
      return { kind: 'ignored', eventId: event.id, type: event.type, why: 'not about a charge' };
    const charge = event.data;
    const shopId = Number(charge.metadata?.shopId);
    const facts = {
      eventId: event.id,
      type: event.type,
      ref: charge.code,
      shopId: Number.isSafeInteger(shopId) ? shopId : null,
      invoiceId: typeof charge.metadata?.invoiceId === 'string' ? charge.metadata.invoiceId : null,
    };
    const price = moneyOf(charge.pricing?.local);
    const currency = (price?.currency ?? '').toUpperCase();
    let digits: number;
    try {
      digits = digitsOf(currency);
    } catch {
      // No price in a currency shopd knows: about no charge shopd made (its charges are in the shop currency).
      return {
        kind: 'ignored',
        eventId: event.id,
        type: event.type,
        why: 'the charge has no price in a known currency',
      };
    }
    const priced = price ? minorOf(price.amount, digits) : null;
    // What arrived in the charge's currency: all of it (for the notes), and what the network confirmed.
    const sumOf = (confirmedOnly: boolean) =>
      (Array.isArray(charge.payments) ? charge.payments : [])
        .filter((p) => !confirmedOnly || p?.status === undefined || p.status === 'CONFIRMED')
        .map((p) => moneyOf(p?.value?.local))
        .filter((m): m is Money => m !== undefined && m.currency.toUpperCase() === currency)
        .reduce((sum, m) => sum + (minorOf(m.amount, digits) ?? 0), 0);
    const received = sumOf(false);
    const confirmed = sumOf(true);
    const receivedText = `${decimalOf(received, digits)} ${currency}`;
    const pricedText = price ? `${price.amount} ${currency}` : 'an unknown amount';
    const paidOut = {
      ...facts,
      kind: 'paid' as const,
      amount: priced ?? -1,
      currency,
      reference:
        (Array.isArray(charge.payments) ? charge.payments : []).find((p) => typeof p?.transaction_id === 'string')
          ?.transaction_id ?? charge.code,
    };
    switch (event.type) {
      case 'charge:confirmed':
        if (priced !== null && confirmed < priced)
          return { ...facts, kind: 'attention', note: `Underpaid: ${receivedText} received of ${pricedText}.` };
        return paidOut;
      case 'charge:resolved':
        return paidOut;
      case 'charge:failed':
        if (received > 0 || charge.timeline?.some((t) => t.context === 'UNDERPAID'))
          return { ...facts, kind: 'attention', note: `Underpaid: ${receivedText} received of ${pricedText}.` };
        return { ...facts, kind: 'ended', status: 'expired' };
      case 'charge:pending':
        return {
          ...facts,
          kind: 'attention',
          note: `A payment of ${receivedText} was seen and awaits confirmation on its network.`,
        };
      case 'charge:delayed':
        return {
          ...facts,
          kind: 'attention',
          note: `Paid after the charge expired: ${receivedText} received of ${pricedText}.`,
        };
      default:
        return { kind: 'ignored', eventId: event.id, type: event.type, why: 'shopd does not act on this event' };
    }
  },

  async refund() {
    // The charges API has no refunds: the owner sends them from the provider's dashboard.
    return null;
  },

  async close(credentials, ref, endpoints) {
    await call(endpoints, `/charges/${encodeURIComponent(ref)}/cancel`, credentials.apiKey!);
  },
};

export const cryptoAdapter: GatewayAdapter = {
  label: 'Coinbase Commerce',
  instructions: ({ amount }) => `Pay ${amount} in cryptocurrency on Coinbase Commerce's payment page.`,
  hosted,
};

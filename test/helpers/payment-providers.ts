import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import Stripe from 'stripe';
import { build, onEnd } from './build.js';

/**
 * A local double of the two payment providers shopd talks to, answering the requests their
 * documentation describes with the responses it documents:
 *
 * - Stripe (`PAYMENTS_STRIPE_API_URL`): `POST /v1/checkout/sessions` (form-encoded, Idempotency-Key
 *   honoured: the same key answers the same session), `POST /v1/checkout/sessions/{id}/expire`,
 *   `POST /v1/refunds` (refused beyond what is left of the payment), `POST /v1/disputes/{id}`
 *   (a dispute's `evidence[...]` and `submit`, on a dispute `stripe.openDispute` made; a submitted
 *   dispute refuses more). Errors are Stripe's
 *   `{ error: { type, message } }`.
 * - The crypto checkout (`PAYMENTS_CRYPTO_API_URL`, the Coinbase Commerce charges API):
 *   `POST /charges` (needs `X-CC-Api-Key`), `POST /charges/{code}/cancel`.
 *
 * It also serves the hosted card page (`GET /stripe/pay/{sessionId}`) a browser test pays on: its
 * "Pay" button marks the session paid, sends the signed `checkout.session.completed` to the
 * callback `stripeCallback` names (as Stripe would), then sends the buyer to the success URL.
 *
 * Callbacks are signed as the providers sign them: `stripeEvent` with the `stripe` library's
 * `webhooks.generateTestHeaderString`, `cryptoEvent` with HMAC-SHA256 of the body.
 */

export interface StripeSession {
  id: string;
  object: 'checkout.session';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  expires_at: number;
  payment_intent: string | null;
  payment_status: 'unpaid' | 'paid';
  status: 'open' | 'complete' | 'expired';
  success_url: string;
  cancel_url: string;
  url: string | null;
  mode: 'payment';
  line_item_name: string;
}

export interface CryptoCharge {
  id: string;
  code: string;
  hosted_url: string;
  expires_at: string;
  created_at: string;
  name: string;
  description: string;
  pricing: { local: { amount: string; currency: string } };
  metadata: Record<string, string>;
  payments: { transaction_id: string; status: string; value: { local: { amount: string; currency: string } } }[];
  timeline: { status: string; time: string; context?: string }[];
  redirect_url: string;
}

/** Stripe's Dispute object, as much of it as shopd reads, with the evidence the double received. */
export interface StripeDispute {
  id: string;
  object: 'dispute';
  payment_intent: string;
  charge: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  evidence: Record<string, string>;
  /** How many updates with `submit=true` arrived. */
  submissions: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface ProviderDouble {
  /** The base URL of both APIs (one server). */
  url: string;
  requests: RecordedRequest[];
  stripe: {
    sessions: Map<string, StripeSession>;
    refunds: { id: string; payment_intent: string; amount: number; metadata: Record<string, string> }[];
    /** Where the hosted page sends `checkout.session.completed`, and the secret to sign it with. */
    callback?: (session: StripeSession) => { url: string; secret: string };
    /** Marks a session paid (as the hosted page does) and answers it. */
    pay(sessionId: string): StripeSession;
    disputes: Map<string, StripeDispute>;
    /** Opens a dispute on a paid session's PaymentIntent (the whole amount), as a bank would; answers the Dispute object. */
    openDispute(paymentIntent: string, reason?: string): StripeDispute;
  };
  crypto: { charges: Map<string, CryptoCharge> };
  /** The next `times` requests to `path` (e.g. `/v1/refunds`) are answered with this error. */
  failNext(path: string, status: number, message: string, times?: number): void;
  close(): Promise<void>;
}

const signer = new Stripe('sk_test_double');

/** A Stripe event around `object`, signed for `secret` as Stripe signs callbacks. */
export function stripeEvent(
  type: string,
  object: object,
  secret: string,
  id = `evt_${randomBytes(12).toString('hex')}`,
) {
  const payload = JSON.stringify({
    id,
    object: 'event',
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type,
    data: { object },
  });
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret });
  return { id, payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } };
}

/** A crypto checkout event around `charge`, signed with HMAC-SHA256 of the body as the provider does. */
export function cryptoEvent(type: string, charge: object, secret: string, id: string = randomUUID()) {
  const payload = JSON.stringify({
    id: Math.floor(Math.random() * 1e6),
    scheduled_for: new Date().toISOString(),
    attempt_number: 1,
    event: {
      id,
      resource: 'event',
      type,
      api_version: '2018-03-22',
      created_at: new Date().toISOString(),
      data: charge,
    },
  });
  const signature = createHmac('sha256', secret).update(payload).digest('hex');
  return { id, payload, headers: { 'content-type': 'application/json', 'x-cc-webhook-signature': signature } };
}

/** `a[b][0][c]=1` form fields as a flat map of their full names. */
function formOf(body: string): Map<string, string> {
  return new Map(new URLSearchParams(body).entries());
}

function metadataOf(form: Map<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of form) {
    const match = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[([^\\]]+)\\]$`).exec(key);
    if (match) out[match[1]!] = value;
  }
  return out;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const stripeError = (res: ServerResponse, status: number, message: string) =>
  send(res, status, { error: { type: 'invalid_request_error', message } });

export async function startProviderDouble(): Promise<ProviderDouble> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, StripeSession>();
  const refunds: ProviderDouble['stripe']['refunds'] = [];
  const disputes = new Map<string, StripeDispute>();
  const charges = new Map<string, CryptoCharge>();
  const idempotent = new Map<string, unknown>();
  const failures = new Map<string, { status: number; message: string; times: number }>();
  let base = '';

  const double: ProviderDouble = {
    url: '',
    requests,
    stripe: {
      sessions,
      refunds,
      pay(sessionId) {
        const session = sessions.get(sessionId);
        if (!session) throw new Error(`no session ${sessionId}`);
        if (session.status !== 'open') throw new Error(`session ${sessionId} is ${session.status}`);
        session.status = 'complete';
        session.payment_status = 'paid';
        session.payment_intent = `pi_${randomBytes(12).toString('hex')}`;
        session.url = null;
        return session;
      },
      disputes,
      openDispute(paymentIntent, reason = 'fraudulent') {
        const paid = [...sessions.values()].find((s) => s.payment_intent === paymentIntent);
        if (!paid) throw new Error(`no payment ${paymentIntent}`);
        const dispute: StripeDispute = {
          id: `dp_${randomBytes(12).toString('hex')}`,
          object: 'dispute',
          payment_intent: paymentIntent,
          charge: `ch_${randomBytes(12).toString('hex')}`,
          amount: paid.amount_total,
          currency: paid.currency,
          reason,
          status: 'needs_response',
          evidence: {},
          submissions: 0,
        };
        disputes.set(dispute.id, dispute);
        return dispute;
      },
    },
    crypto: { charges },
    failNext(path, status, message, times = 1) {
      failures.set(path, { status, message, times });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const stripeApi = (req: IncomingMessage, res: ServerResponse, path: string, body: string) => {
    // Any secret or restricted key works, but one with `revoked` in it, as Stripe refuses a rolled key.
    const authorization = req.headers.authorization ?? '';
    if (!/^Bearer (sk|rk)_/.test(authorization) || authorization.includes('revoked'))
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    const key = req.headers['idempotency-key'];
    const replay = typeof key === 'string' ? idempotent.get(`${path}|${key}`) : undefined;
    if (replay) return send(res, 200, replay, { 'idempotent-replayed': 'true' });
    const remember = (answer: unknown) => {
      if (typeof key === 'string') idempotent.set(`${path}|${key}`, answer);
      send(res, 200, answer);
    };
    const form = formOf(body);
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const id = `cs_test_${randomBytes(16).toString('hex')}`;
      const session: StripeSession = {
        id,
        object: 'checkout.session',
        amount_total:
          Number(form.get('line_items[0][price_data][unit_amount]')) * Number(form.get('line_items[0][quantity]')),
        currency: form.get('line_items[0][price_data][currency]') ?? '',
        client_reference_id: form.get('client_reference_id') ?? null,
        customer_email: form.get('customer_email') ?? null,
        metadata: metadataOf(form, 'metadata'),
        expires_at: Number(form.get('expires_at')),
        payment_intent: null,
        payment_status: 'unpaid',
        status: 'open',
        success_url: form.get('success_url') ?? '',
        cancel_url: form.get('cancel_url') ?? '',
        url: `${base}/stripe/pay/${id}`,
        mode: 'payment',
        line_item_name: form.get('line_items[0][price_data][product_data][name]') ?? '',
      };
      const now = Math.floor(Date.now() / 1000);
      if (!(session.expires_at >= now + 30 * 60 - 5 && session.expires_at <= now + 24 * 3600 + 5))
        return stripeError(res, 400, 'expires_at must be between 30 minutes and 24 hours from now');
      if (!Number.isSafeInteger(session.amount_total) || session.amount_total < 1)
        return stripeError(res, 400, 'Invalid amount');
      sessions.set(id, session);
      return remember(session);
    }
    if (req.method === 'GET' && path === '/v1/checkout/sessions') {
      const data = [...sessions.values()].slice(-1);
      return send(res, 200, { object: 'list', url: '/v1/checkout/sessions', has_more: sessions.size > 1, data });
    }
    const expire = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (req.method === 'POST' && expire) {
      const session = sessions.get(expire[1]!);
      if (!session) return stripeError(res, 404, 'No such checkout.session');
      if (session.status !== 'open') return stripeError(res, 400, `This Checkout Session is ${session.status}`);
      session.status = 'expired';
      session.url = null;
      return remember(session);
    }
    if (req.method === 'POST' && path === '/v1/refunds') {
      const paymentIntent = form.get('payment_intent') ?? '';
      const paid = [...sessions.values()].find((s) => s.payment_intent === paymentIntent);
      if (!paid) return stripeError(res, 404, `No such payment_intent: '${paymentIntent}'`);
      const amount = form.has('amount') ? Number(form.get('amount')) : paid.amount_total;
      const refunded = refunds.filter((r) => r.payment_intent === paymentIntent).reduce((s, r) => s + r.amount, 0);
      if (amount > paid.amount_total - refunded)
        return stripeError(res, 400, `Refund amount (${amount}) is greater than unrefunded amount on charge`);
      const refund = {
        id: `re_${randomBytes(12).toString('hex')}`,
        object: 'refund',
        payment_intent: paymentIntent,
        amount,
        status: 'succeeded',
        metadata: metadataOf(form, 'metadata'),
      };
      refunds.push(refund);
      return remember(refund);
    }
    const disputeUpdate = /^\/v1\/disputes\/([^/]+)$/.exec(path);
    if (req.method === 'POST' && disputeUpdate) {
      const dispute = disputes.get(disputeUpdate[1]!);
      if (!dispute) return stripeError(res, 404, `No such dispute: '${disputeUpdate[1]}'`);
      if (dispute.status !== 'needs_response' && dispute.status !== 'warning_needs_response')
        return stripeError(res, 400, 'This dispute is already closed or its evidence was submitted');
      Object.assign(dispute.evidence, metadataOf(form, 'evidence'));
      if (form.get('submit') === 'true') {
        dispute.submissions += 1;
        dispute.status = 'under_review';
      }
      return send(res, 200, dispute);
    }
    return stripeError(res, 404, `Unrecognized request URL (${req.method}: ${path})`);
  };

  const cryptoApi = (req: IncomingMessage, res: ServerResponse, path: string, body: string) => {
    if (!req.headers['x-cc-api-key'])
      return send(res, 401, { error: { type: 'authorization_error', message: 'No API key' } });
    if (req.method === 'POST' && path === '/charges') {
      const input = JSON.parse(body) as {
        name: string;
        description: string;
        local_price: { amount: string; currency: string };
        metadata: Record<string, string>;
        redirect_url: string;
      };
      const code = randomBytes(4).toString('hex').toUpperCase();
      const charge: CryptoCharge = {
        id: randomUUID(),
        code,
        hosted_url: `${base}/crypto/pay/${code}`,
        created_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 60 * 60_000).toISOString(),
        name: input.name,
        description: input.description,
        pricing: { local: input.local_price },
        metadata: input.metadata,
        payments: [],
        timeline: [{ status: 'NEW', time: new Date().toISOString() }],
        redirect_url: input.redirect_url,
      };
      charges.set(code, charge);
      return send(res, 201, { data: charge });
    }
    const cancel = /^\/charges\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      const charge = charges.get(cancel[1]!);
      if (!charge) return send(res, 404, { error: { type: 'not_found', message: 'Charge not found' } });
      charge.timeline.push({ status: 'CANCELED', time: new Date().toISOString() });
      return send(res, 200, { data: charge });
    }
    return send(res, 404, { error: { type: 'not_found', message: 'Not found' } });
  };

  /** The hosted card page: what the buyer sees at Stripe, reduced to its one button. */
  const hostedPage = async (req: IncomingMessage, res: ServerResponse, id: string) => {
    const session = sessions.get(id);
    if (!session) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('No such session');
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        `<!doctype html><html lang="en"><head><title>Pay — test card page</title></head><body>` +
          `<h1>Test card page</h1><p id="amount">${session.amount_total} ${session.currency}</p>` +
          `<p id="status">${session.status}</p>` +
          `<form method="post"><button type="submit">Pay</button></form></body></html>`,
      );
    }
    const paid = double.stripe.pay(id);
    const target = double.stripe.callback?.(paid);
    if (target) {
      const event = stripeEvent('checkout.session.completed', paid, target.secret);
      const answer = await fetch(target.url, { method: 'POST', headers: event.headers, body: event.payload });
      if (!answer.ok) throw new Error(`the callback answered ${answer.status}: ${await answer.text()}`);
    }
    res.writeHead(303, { location: paid.success_url });
    return res.end();
  };

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://double').pathname;
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const failure = failures.get(path);
      if (failure) {
        if (--failure.times <= 0) failures.delete(path);
        return send(res, failure.status, { error: { type: 'api_error', message: failure.message } });
      }
      const pay = /^\/stripe\/pay\/([^/]+)$/.exec(path);
      const handled = pay
        ? hostedPage(req, res, pay[1]!)
        : path.startsWith('/v1/')
          ? stripeApi(req, res, path, body)
          : cryptoApi(req, res, path, body);
      Promise.resolve(handled).catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  double.url = base;
  return double;
}

/** The app of a test, built against a fresh double of both providers (closed when the test ends). */
export async function buildWithProviders(t: TestContext, env: Record<string, string> = {}) {
  const double = await startProviderDouble();
  onEnd(t, () => double.close());
  const app = await build(t, {
    RATE_LIMIT_PUBLIC_MAX: '0',
    RATE_LIMIT_OWNER_MAX: '0',
    PAYMENTS_STRIPE_API_URL: double.url,
    PAYMENTS_CRYPTO_API_URL: double.url,
    PAYMENTS_TIMEOUT_MS: '5000',
    ...env,
  });
  return { app, double };
}

/** Delivers a signed callback to a shop's provider route, as the provider would. */
export async function deliverCallback(
  app: FastifyInstance,
  provider: 'cardconnect' | 'cryptocommerce',
  shopId: number | string,
  event: { payload: string; headers: Record<string, string> },
) {
  const res = await app.inject({
    method: 'POST',
    url: `/v2/public/payments/${provider}/${shopId}/webhook`,
    headers: event.headers,
    payload: event.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

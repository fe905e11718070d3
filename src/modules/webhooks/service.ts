import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock, Context } from '../../domain/context.js';
import { assertPublicUrl, UnsafeUrlError } from '../../http/address-guard.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { CLAIM_LEASE_MS, ClaimLeases } from '../../jobs/lease.js';
import { nextAttemptAt, type RetrySchedule } from '../../jobs/retry.js';
import { type Job, runAlone, type StandaloneJob } from '../../jobs/runner.js';
import { type PageQuery, toIso } from '../../schemas/common.js';
import type { SecretBox } from '../../security/secret-box.js';
import { findEvent, recordEvent } from '../events/index.js';
import * as repo from './repository.js';
import { generateSecret, type SendResult, sendWebhook } from './sender.js';
import type { DeliveryRow, WebhookRow } from './webhooks.table.js';

type Conn = Kysely<Database>;

/**
 * Retry delays after each failed attempt: about three days in all, then the delivery fails. The
 * webhooks contract lists them (docs/api/webhooks.md).
 */
export const RETRY_DELAYS_MS = [
  5_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  14 * 3600_000,
  20 * 3600_000,
  20 * 3600_000,
];
/**
 * An attempt that could not be signed: the key in use cannot open the endpoint's secret. It is
 * retried like any failure, so deliveries go out once the operator restores the key.
 */
export const UNREADABLE_SIGNING_SECRET =
  "not sent: the signing secret cannot be opened with this server's key (SECRET_KEY or DATA_DIR/secret.key changed); " +
  'restore the old key or run `shopd secrets rotate`, or delete and recreate this endpoint';

/** Full jitter within ±20 % so that retries of many deliveries do not arrive together. */
export function retryDelayMs(attempts: number, random = Math.random): number {
  const base = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** The first attempt and one retry after each delay of RETRY_DELAYS_MS. */
export const WEBHOOK_RETRIES: RetrySchedule = {
  attempts: RETRY_DELAYS_MS.length + 1,
  delayMs: (failed) => retryDelayMs(failed),
};

export function toWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

async function checkUrl(url: string, allowPrivate: boolean): Promise<void> {
  try {
    await assertPublicUrl(url, allowPrivate);
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw ValidationError.field('url', err.message);
    throw err;
  }
}

async function requireWebhook(db: Conn, shopId: number, webhookId: number): Promise<WebhookRow> {
  const row = await repo.findWebhook(db, shopId, webhookId);
  if (!row) throw new NotFoundError('Webhook');
  return row;
}

export async function createWebhook(
  db: Conn,
  secrets: SecretBox,
  shopId: number,
  input: { url: string; events: string[]; enabled?: boolean | null | undefined },
  allowPrivate: boolean,
  now: number,
) {
  await checkUrl(input.url, allowPrivate);
  const secret = generateSecret();
  const row = await repo.insertWebhook(db, {
    shop_id: shopId,
    url: input.url,
    events: JSON.stringify([...new Set(input.events)]),
    enabled: input.enabled === false ? 0 : 1,
    secret: secrets.seal(secret),
    created_at: now,
    updated_at: now,
  });
  return { ...toWebhook(row), secret };
}

export async function getWebhook(db: Conn, shopId: number, webhookId: number) {
  return toWebhook(await requireWebhook(db, shopId, webhookId));
}

export async function listWebhooks(db: Conn, shopId: number, query: PageQuery) {
  const [rows, total] = await Promise.all([
    repo.listWebhooks(db, shopId, pageWindow(query)),
    repo.countWebhooks(db, shopId),
  ]);
  return toPage(rows.map(toWebhook), total, query);
}

/** Full update; turning an endpoint back on clears the reason it was turned off. */
export async function updateWebhook(
  db: Conn,
  shopId: number,
  webhookId: number,
  input: { url: string; events: string[]; enabled?: boolean | null | undefined },
  allowPrivate: boolean,
  now: number,
) {
  await requireWebhook(db, shopId, webhookId);
  await checkUrl(input.url, allowPrivate);
  const enabled = input.enabled !== false;
  const row = await repo.updateWebhook(
    db,
    shopId,
    webhookId,
    {
      url: input.url,
      events: JSON.stringify([...new Set(input.events)]),
      enabled: enabled ? 1 : 0,
      ...(enabled ? { disabled_reason: null } : {}),
    },
    now,
  );
  return toWebhook(row!);
}

export async function deleteWebhook(db: Conn, shopId: number, webhookId: number) {
  if (!(await repo.deleteWebhook(db, shopId, webhookId))) throw new NotFoundError('Webhook');
  return { id: webhookId, deleted: true as const };
}

export async function listAttempts(db: Conn, shopId: number, webhookId: number, query: PageQuery) {
  await requireWebhook(db, shopId, webhookId);
  const [rows, total] = await Promise.all([
    repo.listAttempts(db, shopId, webhookId, pageWindow(query)),
    repo.countAttempts(db, shopId, webhookId),
  ]);
  const items = rows.map((a) => ({
    id: a.id,
    deliveryId: a.delivery_id,
    eventId: a.event_id,
    eventType: a.event_type,
    attempt: a.attempt,
    statusCode: a.status_code,
    durationMs: a.duration_ms,
    error: a.error,
    createdAt: toIso(a.created_at),
  }));
  return toPage(items, total, query);
}

function toDelivery(row: DeliveryRow, eventType: string) {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType,
    status: row.status,
    attempts: row.attempts,
    // While a delivery is being sent, next_attempt_at is its claim's lease, not a due time.
    nextAttemptAt: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
    deliveredAt: toIso(row.delivered_at),
    createdAt: toIso(row.created_at),
  };
}

/**
 * `POST webhooks/{id}/deliveries/{deliveryId}/resend`: the delivery (one per endpoint and event)
 * is re-armed, due now, whatever its state, so the next worker pass sends the same event again.
 * Re-arming rather than a second row: the table holds one delivery per endpoint and event
 * (webhook_deliveries_once), and the delivery's attempts stay one history. An endpoint that is
 * off would turn the resend into a failed attempt at once: refused instead.
 */
export async function resendDelivery(db: Conn, shopId: number, webhookId: number, deliveryId: number, now: number) {
  return db.transaction().execute(async (trx) => {
    const webhook = await requireWebhook(trx, shopId, webhookId);
    const delivery = await repo.findDelivery(trx, shopId, webhookId, deliveryId);
    if (!delivery) throw new NotFoundError('Delivery');
    if (webhook.enabled !== 1) {
      const why = webhook.disabled_reason ? ` (${webhook.disabled_reason})` : '';
      throw new ConflictError(`The endpoint is disabled${why}: enable it again before resending its deliveries.`);
    }
    const row = await repo.rearmDelivery(trx, shopId, webhookId, deliveryId, now);
    if (!row) throw new NotFoundError('Delivery');
    return toDelivery(row, (await requireEvent(trx, shopId, delivery.event_id)).type);
  });
}

/** A delivery's event (its foreign key keeps it while the delivery exists). */
async function requireEvent(db: Conn, shopId: number, eventId: string) {
  const event = await findEvent(db, shopId, eventId);
  if (!event) throw new Error(`event ${eventId} of shop ${shopId} not found`);
  return event;
}

interface Deliverer {
  db: Conn;
  secrets: SecretBox;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Where attempts, outcomes and leases read the time. */
  clock: Clock;
}

/** Sends one claimed delivery and records the attempt at `now()`; answers what the endpoint said. */
async function attempt(ctx: Deliverer, delivery: DeliveryRow, now: () => number, force = false): Promise<SendResult> {
  const [webhook, event] = await Promise.all([
    repo.findWebhook(ctx.db, delivery.shop_id, delivery.webhook_id),
    requireEvent(ctx.db, delivery.shop_id, delivery.event_id),
  ]);
  const payload = JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: toIso(event.createdAt),
    shopId: event.shopId,
    data: event.data,
  });
  const secret = webhook ? ctx.secrets.tryOpen(webhook.secret) : undefined;
  // The system's time, not the clock's: receivers check that the signature is recent by their own.
  const timestamp = Math.floor(Date.now() / 1000);
  const result: SendResult = !webhook
    ? { statusCode: null, durationMs: 0, error: 'endpoint deleted' }
    : webhook.enabled !== 1 && !force
      ? { statusCode: null, durationMs: 0, error: 'endpoint disabled' }
      : secret === undefined
        ? { statusCode: null, durationMs: 0, error: UNREADABLE_SIGNING_SECRET }
        : await sendWebhook(webhook.url, { id: event.id, timestamp, body: payload, secret }, ctx);
  if (webhook) {
    await repo.insertAttempt(ctx.db, {
      shopId: delivery.shop_id,
      webhookId: delivery.webhook_id,
      deliveryId: delivery.id,
      eventId: event.id,
      eventType: event.type,
      attempt: delivery.attempts,
      ...result,
      now: now(),
    });
  }
  return result;
}

async function settle(ctx: Deliverer, delivery: DeliveryRow, result: SendResult, now: number): Promise<void> {
  if (result.error === null) return repo.finishDelivery(ctx.db, delivery, { status: 'succeeded', now });
  if (result.statusCode === 410) {
    // The receiver says the endpoint is gone: stop sending to it.
    await repo.updateWebhook(
      ctx.db,
      delivery.shop_id,
      delivery.webhook_id,
      { enabled: 0, disabled_reason: 'gone: the endpoint answered HTTP 410' },
      now,
    );
    return repo.finishDelivery(ctx.db, delivery, { status: 'failed', now });
  }
  // Each claim counted an attempt: `attempts` is the number of this failure.
  const next =
    result.error === 'endpoint deleted' || result.error === 'endpoint disabled'
      ? null
      : nextAttemptAt(WEBHOOK_RETRIES, delivery.attempts, now);
  if (next === null) return repo.finishDelivery(ctx.db, delivery, { status: 'failed', now });
  return repo.finishDelivery(ctx.db, delivery, { status: 'pending', nextAttemptAt: next, now });
}

/** Deliveries one instance has in flight at once, over all endpoints. */
const INSTANCE_IN_FLIGHT = 64;

export interface PassOptions {
  /** Deliveries in flight at once per endpoint, across instances (WEBHOOK_CONCURRENCY). */
  perEndpoint: number;
  /** Asked before each claim: a stopping worker claims nothing more and lets its sends finish. */
  stopping: () => boolean;
  /** The worker's claims: each delivery is held there while in flight, for the heartbeat. */
  leases: ClaimLeases<DeliveryRow>;
}

/**
 * One pass: recovers lapsed claims, then sends every delivery that is due at `now`, up to
 * `perEndpoint` at once per endpoint. The order an endpoint sees: deliveries with the same
 * ordering key (events about one object: an invoice, a ticket, a customer's balance, a
 * product) one at a time, each sent only once the one before it succeeded or finally failed;
 * deliveries of different objects side by side. A finished send frees its endpoint's slot and
 * the pass claims that endpoint's next delivery at once, so an endpoint answering in 10 ms
 * gets about `perEndpoint` / 10 ms, not one delivery per interval. The pass ends when nothing
 * due at `now` is left (a failed send is retried with backoff, by a later pass); it answers
 * how many deliveries succeeded.
 */
export async function deliverDue(ctx: Deliverer, now: number, options: PassOptions): Promise<number> {
  const { leases } = options;
  // Never before the pass's moment, which a long pass is past; backoff counts from that moment.
  const time = () => Math.max(now, ctx.clock.now());
  await leases.recoverLapsed(now);
  // Endpoints that may have a claimable delivery.
  const wanting = new Set(await repo.endpointsWithDueDeliveries(ctx.db, now));
  const inFlight = new Set<Promise<void>>();
  let succeeded = 0;
  let failure: unknown;
  const send = async (delivery: DeliveryRow) => {
    try {
      const result = await attempt(ctx, delivery, time);
      await settle(ctx, delivery, result, now);
      if (result.error === null) succeeded++;
      // To the back of the line: endpoints take turns for this instance's slots.
      wanting.delete(delivery.webhook_id);
      wanting.add(delivery.webhook_id);
    } catch (err) {
      // The delivery stays claimed until its lease lapses and a later pass sends it again;
      // this pass claims no more for its endpoint, rather than fail its whole backlog alike.
      failure ??= err;
    } finally {
      leases.held.delete(delivery.id);
    }
  };
  for (;;) {
    for (const webhookId of wanting) {
      const room = INSTANCE_IN_FLIGHT - inFlight.size;
      if (room <= 0 || options.stopping()) break;
      wanting.delete(webhookId);
      let claimed: DeliveryRow[];
      try {
        claimed = await repo.claimForEndpoint(ctx.db, webhookId, now, leases.leaseUntil(time()), {
          max: room,
          perEndpoint: options.perEndpoint,
        });
      } catch (err) {
        // Claim nothing more; the sends in flight finish before the pass reports the failure.
        failure ??= err;
        wanting.clear();
        break;
      }
      for (const delivery of claimed) {
        leases.held.set(delivery.id, delivery);
        const job: Promise<void> = send(delivery).finally(() => inFlight.delete(job));
        inFlight.add(job);
      }
    }
    if (inFlight.size === 0 && (wanting.size === 0 || options.stopping())) break;
    if (inFlight.size > 0) await Promise.race(inFlight);
  }
  if (failure !== undefined) throw failure;
  return succeeded;
}

/**
 * `POST webhooks/{id}/test`: a `ping` event for this endpoint only, sent now (even when the
 * endpoint is disabled); the attempt is in the deliveries log like any other.
 */
export async function ping(ctx: Deliverer, shopId: number, webhookId: number) {
  const webhook = await requireWebhook(ctx.db, shopId, webhookId);
  const now = ctx.clock.now();
  // Recorded like any event, but delivered to this endpoint only, never through subscriptions.
  const eventId = await recordEvent(ctx.db, { shopId, type: 'ping', data: { webhookId }, at: now });
  await repo.insertDeliveries(ctx.db, shopId, eventId, `ping:${eventId}`, [webhook.id], now);
  // No heartbeat renews this claim: its lease covers the whole timeout.
  const delivery = await repo.claimDeliveryOf(ctx.db, webhook.id, eventId, now + ctx.timeoutMs + CLAIM_LEASE_MS);
  // A test is sent even to a disabled endpoint: the owner is checking it.
  const result = await attempt(ctx, delivery, () => ctx.clock.now(), true);
  await repo.finishDelivery(ctx.db, delivery, {
    status: result.error === null ? 'succeeded' : 'failed',
    now: ctx.clock.now(),
  });
  return { eventId, ok: result.error === null, ...result };
}

/** The deliveries not settled yet, of every shop (the operator's metrics): how many, and when the oldest was queued. */
export function deliveryBacklog(ctx: Context): Promise<{ count: number; oldestCreatedAt: number | null }> {
  return repo.unsettledDeliveries(ctx.db);
}

// The two operations below serve the secrets module (the start-up check, `shopd secrets rotate`),
// which handles the sealed secrets of every shop at once; they never answer a request. `db` is
// the caller's: a rotation reads and writes every secret in one transaction.

/** Every endpoint's sealed signing secret. */
export async function sealedWebhookSecrets(db: Conn): Promise<{ shopId: number; webhookId: number; sealed: string }[]> {
  const rows = await repo.listSealedWebhookSecrets(db);
  return rows.map((r) => ({ shopId: r.shop_id, webhookId: r.id, sealed: r.secret }));
}

/** Stores an endpoint's signing secret sealed anew (under another key): the same secret, so receivers notice nothing. */
export function resealWebhookSecret(db: Conn, shopId: number, webhookId: number, sealed: string): Promise<void> {
  return repo.replaceSealedWebhookSecret(db, shopId, webhookId, sealed);
}

/** A webhook worker of its own: the delivery job on a runner of its own (another instance's, in tests). */
/** `stop()` claims nothing more and waits (at most 5 s) for the sends in flight. */
export type WebhookWorker = StandaloneJob;

export interface WebhookWorkerOptions {
  /** Run a pass every `config.webhooks.intervalMs`; default `config.webhooks.workerEnabled`. */
  schedule?: boolean;
  /** How often the claims in flight are renewed; default `HEARTBEAT_MS` (tests shorten it). */
  heartbeatMs?: number;
  /** How long `stop()` waits for sends in flight; default 5 s (tests lengthen it). */
  stopGraceMs?: number;
}

/**
 * The delivery job of this instance (the app's runner, src/jobs/runner.ts, runs it as
 * `webhooks`): each pass sends what is due (`deliverDue`), and the next follows at once when it
 * delivered something (more may have come due meanwhile). Claims follow the outboxes' lease
 * discipline (src/jobs/lease.ts). Every delivery is sent as soon as it is claimed, so a stopping
 * worker has no unstarted claims to hand back; sends still in flight after the grace are sent
 * again by another worker once their lease lapses (receivers dedupe by `webhook-id`).
 */
export function webhookDeliveryJob(app: FastifyInstance, options: WebhookWorkerOptions = {}): Job {
  const { webhooks } = app.config;
  const ctx: Deliverer = {
    db: app.db.kysely,
    secrets: app.secrets,
    timeoutMs: webhooks.timeoutMs,
    allowPrivate: webhooks.allowPrivate,
    clock: app.ctx.clock,
  };
  const leases = new ClaimLeases<DeliveryRow>(
    {
      renew: (claims, leaseUntil) => repo.renewDeliveryClaims(ctx.db, claims, leaseUntil),
      recoverLapsed: (now) => repo.recoverLapsedClaims(ctx.db, now),
    },
    {
      clock: ctx.clock,
      log: app.log.child({ component: 'webhooks' }),
      heartbeatMs: options.heartbeatMs,
      stopGraceMs: options.stopGraceMs,
    },
  );
  let stopping = false;
  const pass: PassOptions = { perEndpoint: webhooks.concurrency, stopping: () => stopping, leases };
  return {
    name: 'webhooks',
    intervalMs: webhooks.intervalMs,
    scheduled: options.schedule ?? webhooks.workerEnabled,
    drains: true,
    run: (now) => deliverDue(ctx, now, pass),
    async stop(running) {
      stopping = true;
      await leases.stop(running);
    },
  };
}

/** The delivery job on a runner of its own, as another instance would run it. */
export function startWebhookWorker(app: FastifyInstance, options: WebhookWorkerOptions = {}): WebhookWorker {
  return runAlone(webhookDeliveryJob(app, options), { clock: app.ctx.clock, log: app.log, health: app.db.health });
}

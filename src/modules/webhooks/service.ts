import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { assertPublicUrl, UnsafeUrlError } from '../../http/address-guard.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { type PageQuery, toIso } from '../../schemas/common.js';
import type { SecretBox } from '../../security/secret-box.js';
import * as repo from './repository.js';
import { generateSecret, type SendResult, sendWebhook } from './sender.js';
import type { DeliveryRow, WebhookRow } from './webhooks.table.js';

type Conn = Kysely<Database>;

/** Retry delays after each failed attempt: about three days in all, then the delivery fails. */
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
/**
 * How long a claim lasts unless its worker renews it: a live worker renews the claims of its
 * sends in flight every `HEARTBEAT_MS`, however long the endpoint takes, so only a crashed
 * worker's deliveries wait, and for this long at most, before another worker sends them again.
 */
export const CLAIM_LEASE_MS = 30_000;
/** A third of the lease: two beats may fail (a slow database) before a live claim lapses. */
export const HEARTBEAT_MS = 10_000;
/** How long `stop()` waits for sends in flight (their lease covers the rest); inside the server's 10 s shutdown grace. */
const STOP_GRACE_MS = 5_000;

/** Full jitter within ±20 % so that retries of many deliveries do not arrive together. */
export function retryDelayMs(attempts: number, random = Math.random): number {
  const base = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}

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
) {
  await checkUrl(input.url, allowPrivate);
  const secret = generateSecret();
  const now = Date.now();
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
) {
  await requireWebhook(db, shopId, webhookId);
  await checkUrl(input.url, allowPrivate);
  const enabled = input.enabled !== false;
  const row = await repo.updateWebhook(db, shopId, webhookId, {
    url: input.url,
    events: JSON.stringify([...new Set(input.events)]),
    enabled: enabled ? 1 : 0,
    ...(enabled ? { disabled_reason: null } : {}),
  });
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
export async function resendDelivery(db: Conn, shopId: number, webhookId: number, deliveryId: number) {
  return db.transaction().execute(async (trx) => {
    const webhook = await requireWebhook(trx, shopId, webhookId);
    const delivery = await repo.findDelivery(trx, shopId, webhookId, deliveryId);
    if (!delivery) throw new NotFoundError('Delivery');
    if (webhook.enabled !== 1) {
      const why = webhook.disabled_reason ? ` (${webhook.disabled_reason})` : '';
      throw new ConflictError(`The endpoint is disabled${why}: enable it again before resending its deliveries.`);
    }
    const row = await repo.rearmDelivery(trx, shopId, webhookId, deliveryId, Date.now());
    if (!row) throw new NotFoundError('Delivery');
    return toDelivery(row, delivery.event_type);
  });
}

/** The enabled endpoints of the shop subscribed to `type`: where an event of it will be delivered. */
export async function subscribedEndpoints(db: Conn, shopId: number, type: string): Promise<number[]> {
  return (await repo.enabledWebhooks(db, shopId))
    .filter((w) => (JSON.parse(w.events) as string[]).includes(type))
    .map((w) => w.id);
}

/** In the transaction that records an event: one delivery per endpoint of `targets`. */
export async function queueDeliveries(
  db: Conn,
  shopId: number,
  eventId: string,
  orderingKey: string | null,
  targets: number[],
  now: number,
): Promise<void> {
  await repo.insertDeliveries(db, shopId, eventId, orderingKey, targets, now);
}

interface Deliverer {
  db: Conn;
  secrets: SecretBox;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Sends one claimed delivery and records the attempt; answers what the endpoint said. */
async function attempt(ctx: Deliverer, delivery: DeliveryRow, now: () => number, force = false): Promise<SendResult> {
  const [webhook, event] = await Promise.all([
    repo.findWebhook(ctx.db, delivery.shop_id, delivery.webhook_id),
    repo.findEvent(ctx.db, delivery.shop_id, delivery.event_id),
  ]);
  const payload = JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: toIso(event.created_at),
    shopId: event.shop_id,
    data: JSON.parse(event.payload) as unknown,
  });
  const secret = webhook ? ctx.secrets.tryOpen(webhook.secret) : undefined;
  const result: SendResult = !webhook
    ? { statusCode: null, durationMs: 0, error: 'endpoint deleted' }
    : webhook.enabled !== 1 && !force
      ? { statusCode: null, durationMs: 0, error: 'endpoint disabled' }
      : secret === undefined
        ? { statusCode: null, durationMs: 0, error: UNREADABLE_SIGNING_SECRET }
        : await sendWebhook(
            webhook.url,
            { id: event.id, timestamp: Math.floor(now() / 1000), body: payload, secret },
            ctx,
          );
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
    await repo.updateWebhook(ctx.db, delivery.shop_id, delivery.webhook_id, {
      enabled: 0,
      disabled_reason: 'gone: the endpoint answered HTTP 410',
    });
    return repo.finishDelivery(ctx.db, delivery, { status: 'failed', now });
  }
  if (
    result.error === 'endpoint deleted' ||
    result.error === 'endpoint disabled' ||
    delivery.attempts >= RETRY_DELAYS_MS.length
  ) {
    return repo.finishDelivery(ctx.db, delivery, { status: 'failed', now });
  }
  return repo.finishDelivery(ctx.db, delivery, {
    status: 'pending',
    nextAttemptAt: now + retryDelayMs(delivery.attempts),
    now,
  });
}

/** Deliveries one instance has in flight at once, over all endpoints. */
const INSTANCE_IN_FLIGHT = 64;

export interface PassOptions {
  /** Deliveries in flight at once per endpoint, across instances (WEBHOOK_CONCURRENCY). */
  perEndpoint: number;
  /** Asked before each claim: a stopping worker claims nothing more and lets its sends finish. */
  stopping?: () => boolean;
  /** The deliveries this pass has in flight, by id, kept up to date for the worker's heartbeat. */
  held?: Map<number, DeliveryRow>;
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
  await repo.recoverLapsedClaims(ctx.db, now);
  // Endpoints that may have a claimable delivery.
  const wanting = new Set(await repo.endpointsWithDueDeliveries(ctx.db, now));
  const inFlight = new Set<Promise<void>>();
  let succeeded = 0;
  let failure: unknown;
  const send = async (delivery: DeliveryRow) => {
    try {
      // The signature's timestamp is the real time of sending (receivers check it is recent),
      // which in a long pass is later than the moment the pass is for; backoff counts from that moment.
      const result = await attempt(ctx, delivery, () => Math.max(now, Date.now()));
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
      options.held?.delete(delivery.id);
    }
  };
  for (;;) {
    for (const webhookId of wanting) {
      const room = INSTANCE_IN_FLIGHT - inFlight.size;
      if (room <= 0 || options.stopping?.()) break;
      wanting.delete(webhookId);
      const leaseUntil = Math.max(now, Date.now()) + CLAIM_LEASE_MS;
      let claimed: DeliveryRow[];
      try {
        claimed = await repo.claimForEndpoint(ctx.db, webhookId, now, leaseUntil, {
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
        options.held?.set(delivery.id, delivery);
        const job: Promise<void> = send(delivery).finally(() => inFlight.delete(job));
        inFlight.add(job);
      }
    }
    if (inFlight.size === 0 && (wanting.size === 0 || options.stopping?.())) break;
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
  const now = Date.now();
  const eventId = `evt_${randomBytes(16).toString('base64url')}`;
  await repo.insertPingEvent(ctx.db, shopId, eventId, webhookId, now);
  await repo.insertDeliveries(ctx.db, shopId, eventId, `ping:${eventId}`, [webhook.id], now);
  // No heartbeat renews this claim: its lease covers the whole timeout.
  const delivery = await repo.claimDeliveryOf(ctx.db, webhook.id, eventId, now + ctx.timeoutMs + CLAIM_LEASE_MS);
  // A test is sent even to a disabled endpoint: the owner is checking it.
  const result = await attempt(ctx, delivery, Date.now, true);
  await repo.finishDelivery(ctx.db, delivery, {
    status: result.error === null ? 'succeeded' : 'failed',
    now: Date.now(),
  });
  return { eventId, ok: result.error === null, ...result };
}

export interface WebhookWorker {
  runOnce(now?: number): Promise<number>;
  /** Claims nothing more and waits (at most 5 s) for the sends in flight. */
  stop(): Promise<void>;
}

export interface WebhookWorkerOptions {
  /** How often the claims in flight are renewed; default `HEARTBEAT_MS` (tests shorten it). */
  heartbeatMs?: number;
  /** How long `stop()` waits for sends in flight; default 5 s (tests lengthen it). */
  stopGraceMs?: number;
}

/**
 * The delivery loop of this instance, never overlapping itself, stopped on close: a pass, then
 * the next one at once if it delivered something (more may have come due meanwhile), else
 * after the interval. A heartbeat renews the leases of the deliveries in flight and takes back
 * other workers' lapsed claims meanwhile. Every delivery is sent as soon as it is claimed, so a
 * stopping worker has no unstarted claims to hand back; sends still in flight after the grace
 * are sent again by another worker once their lease lapses (receivers dedupe by `webhook-id`).
 */
export function startWebhookWorker(app: FastifyInstance, options: WebhookWorkerOptions = {}): WebhookWorker {
  const ctx: Deliverer = {
    db: app.db.kysely,
    secrets: app.secrets,
    timeoutMs: app.config.webhooks.timeoutMs,
    allowPrivate: app.config.webhooks.allowPrivate,
  };
  const log = app.log.child({ component: 'webhooks' });
  let running: Promise<number> = Promise.resolve(0);
  let stopped = false;
  const held = new Map<number, DeliveryRow>();
  const pass = { perEndpoint: app.config.webhooks.concurrency, stopping: () => stopped, held };
  const runOnce = (now?: number) => {
    running = running.catch(() => 0).then(() => deliverDue(ctx, now ?? Date.now(), pass));
    return running;
  };
  let beating = false;
  const heartbeat = setInterval(async () => {
    if (beating || held.size === 0) return;
    beating = true;
    try {
      const now = Date.now();
      await repo.renewDeliveryClaims(ctx.db, [...held.values()], now + CLAIM_LEASE_MS);
      await repo.recoverLapsedClaims(ctx.db, now);
    } catch (err) {
      log.warn({ err }, 'webhook claims not renewed; retrying at the next beat');
    } finally {
      beating = false;
    }
  }, options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delayMs: number) => {
    if (stopped || !app.config.webhooks.workerEnabled) return;
    timer = setTimeout(() => {
      runOnce()
        .catch((err: unknown) => {
          // A database outage is logged once by the database's health (storage-health.ts), not at every pass.
          if (app.db.health.report(err)) app.log.debug({ err }, 'webhook delivery pass failed');
          else app.log.error({ err }, 'webhook delivery pass failed');
          return 0;
        })
        .then((delivered) => schedule(delivered > 0 ? 0 : app.config.webhooks.intervalMs));
    }, delayMs);
    timer.unref();
  };
  schedule(app.config.webhooks.intervalMs);
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      let grace: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        grace = setTimeout(() => resolve(true), options.stopGraceMs ?? STOP_GRACE_MS);
        grace.unref();
      });
      if (
        await Promise.race([
          running.then(
            () => false,
            () => false,
          ),
          timedOut,
        ])
      ) {
        log.warn(
          { inFlight: held.size, leaseMs: CLAIM_LEASE_MS },
          'webhook worker stopped with deliveries in flight; they are sent again once their claim lease lapses',
        );
      }
      clearTimeout(grace);
      clearInterval(heartbeat);
    },
  };
}

import { type ExpressionBuilder, type Insertable, type Kysely, type SqlBool, sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { DeliveryRow, WebhookDeliveriesTable, WebhookEndpointsTable, WebhookRow } from './webhooks.table.js';

type Conn = Kysely<Database>;

export function findWebhook(db: Conn, shopId: number, webhookId: number): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', webhookId)
    .executeTakeFirst();
}

export function listWebhooks(db: Conn, shopId: number, page: { limit: number; offset: number }): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('shop_id', '=', shopId)
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countWebhooks(db: Conn, shopId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertWebhook(db: Conn, row: Insertable<WebhookEndpointsTable>): Promise<WebhookRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateWebhook(
  db: Conn,
  shopId: number,
  webhookId: number,
  patch: { url?: string; events?: string; enabled?: number; disabled_reason?: string | null },
  now: number,
): Promise<WebhookRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', webhookId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteWebhook(db: Conn, shopId: number, webhookId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('shop_id', '=', shopId)
    .where('id', '=', webhookId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Enabled endpoints of the shop with their subscriptions, for fanning an event out. */
export function enabledWebhooks(db: Conn, shopId: number): Promise<{ id: number; events: string }[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('shop_id', '=', shopId)
    .where('enabled', '=', 1)
    .execute();
}

export async function insertDeliveries(
  db: Conn,
  shopId: number,
  eventId: string,
  orderingKey: string | null,
  webhookIds: number[],
  now: number,
): Promise<void> {
  if (webhookIds.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      webhookIds.map((webhookId) => ({
        shop_id: shopId,
        webhook_id: webhookId,
        event_id: eventId,
        ordering_key: orderingKey,
        next_attempt_at: now,
        created_at: now,
      })),
    )
    .execute();
}

/** Deliveries whose claim lapsed (a worker died mid-send) become due again; answers how many. */
export async function recoverLapsedClaims(db: Conn, now: number): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending' })
    .where('status', '=', 'delivering')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Endpoints with a delivery due at `now`, oldest due work first: where a delivery pass starts. */
export async function endpointsWithDueDeliveries(db: Conn, now: number): Promise<number[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('webhook_id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .groupBy('webhook_id')
    .orderBy((eb) => eb.fn.min('id'))
    .execute();
  return rows.map((r) => r.webhook_id);
}

/**
 * Claims up to `max` due deliveries of one endpoint, marking them `delivering` until
 * `leaseUntil`, such that the endpoint never has more than `perEndpoint` in flight (counting
 * those any worker holds) and no delivery goes before an older unfinished one of its ordering
 * key (nor of the null key, which orders against all). One transaction; on PostgreSQL it holds
 * the endpoint's row, so claims for one endpoint from several instances take turns and each
 * counts what the one before it claimed. It waits its turn rather than skip the endpoint: a
 * worker claims right after its own send is settled, and a claim skipped then could leave the
 * slot that send freed unused until some other send ends.
 */
export async function claimForEndpoint(
  db: Conn,
  webhookId: number,
  now: number,
  leaseUntil: number,
  limits: { max: number; perEndpoint: number },
): Promise<DeliveryRow[]> {
  return db.transaction().execute(async (trx) => {
    if (isPostgres(trx)) {
      // NO KEY UPDATE: checkouts writing deliveries for this endpoint (a foreign key's KEY SHARE) are not held up.
      const held = await trx
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('id', '=', webhookId)
        .forNoKeyUpdate()
        .executeTakeFirst();
      if (!held) return [];
    }
    const inFlight = await trx
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'delivering')
      .executeTakeFirstOrThrow();
    const room = Math.min(limits.max, limits.perEndpoint - Number(inFlight.n));
    if (room <= 0) return [];
    // "Older and unfinished, of this endpoint": what a delivery may have to wait for.
    const olderUnfinished = (eb: ExpressionBuilder<Database & { d: WebhookDeliveriesTable }, 'd'>) =>
      eb
        .selectFrom('webhook_deliveries as e')
        .select('e.id')
        .where('e.webhook_id', '=', webhookId)
        .where('e.status', 'in', ['pending', 'delivering'])
        .whereRef('e.id', '<', 'd.id');
    // Three conditions rather than one with OR, so that each is a seek in webhook_deliveries_order_idx.
    const eligible = await trx
      .selectFrom('webhook_deliveries as d')
      .select('d.id')
      .where('d.webhook_id', '=', webhookId)
      .where('d.status', '=', 'pending')
      // The unary + keeps SQLite off the (status, next_attempt_at) index, which would read every
      // due row and sort them; through (webhook_id, status, id) it stops after `room` rows.
      .where(sql<SqlBool>`+${sql.ref('d.next_attempt_at')} <= ${now}`)
      .where((eb) => eb.not(eb.exists(olderUnfinished(eb).whereRef('e.ordering_key', '=', 'd.ordering_key'))))
      .where((eb) => eb.not(eb.exists(olderUnfinished(eb).where('e.ordering_key', 'is', null))))
      .where((eb) => eb.or([eb('d.ordering_key', 'is not', null), eb.not(eb.exists(olderUnfinished(eb)))]))
      .orderBy('d.id')
      .limit(room)
      .execute();
    if (eligible.length === 0) return [];
    return trx
      .updateTable('webhook_deliveries')
      .set({ status: 'delivering', next_attempt_at: leaseUntil, attempts: sql`attempts + 1` })
      .where(
        'id',
        'in',
        eligible.map((r) => r.id),
      )
      .where('status', '=', 'pending')
      .returningAll()
      .execute()
      .then((rows) => rows.sort((a, b) => a.id - b.id));
  });
}

/**
 * Settles a claim, if it is still the delivery's current one. Each claim counts an attempt, so
 * `attempts` tells claims apart: when a resend re-armed the delivery during the send (or its
 * lease lapsed and another worker claimed it), this outcome stays in the attempts log only.
 */
export async function finishDelivery(
  db: Conn,
  claim: { id: number; attempts: number },
  outcome: { status: 'succeeded' | 'failed' | 'pending'; nextAttemptAt?: number; now: number },
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      ...(outcome.nextAttemptAt !== undefined ? { next_attempt_at: outcome.nextAttemptAt } : {}),
      ...(outcome.status === 'succeeded' ? { delivered_at: outcome.now } : {}),
    })
    .where('id', '=', claim.id)
    .where('status', '=', 'delivering')
    .where('attempts', '=', claim.attempts)
    .execute();
}

/** Pushes the lease of claims still current (same `attempts`, still `delivering`) to `leaseUntil`: the worker's heartbeat. */
export async function renewDeliveryClaims(
  db: Conn,
  claims: { id: number; attempts: number }[],
  leaseUntil: number,
): Promise<void> {
  if (claims.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: leaseUntil })
    .where('status', '=', 'delivering')
    .where((eb) => eb.or(claims.map((c) => eb.and([eb('id', '=', c.id), eb('attempts', '=', c.attempts)]))))
    .execute();
}

/** One delivery of this shop's endpoint. */
export function findDelivery(
  db: Conn,
  shopId: number,
  webhookId: number,
  deliveryId: number,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/**
 * Makes a delivery due at `now` whatever its state. Its attempt count goes on (a claim in
 * flight is told apart by it, see finishDelivery), and with it the retry schedule.
 */
export function rearmDelivery(
  db: Conn,
  shopId: number,
  webhookId: number,
  deliveryId: number,
  now: number,
): Promise<DeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now })
    .where('shop_id', '=', shopId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', deliveryId)
    .returningAll()
    .executeTakeFirst();
}

export async function insertAttempt(
  db: Conn,
  a: {
    shopId: number;
    webhookId: number;
    deliveryId: number;
    eventId: string;
    eventType: string;
    attempt: number;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    now: number;
  },
): Promise<void> {
  await db
    .insertInto('webhook_attempts')
    .values({
      shop_id: a.shopId,
      webhook_id: a.webhookId,
      delivery_id: a.deliveryId,
      event_id: a.eventId,
      event_type: a.eventType,
      attempt: a.attempt,
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      created_at: a.now,
    })
    .execute();
}

export function listAttempts(db: Conn, shopId: number, webhookId: number, page: { limit: number; offset: number }) {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countAttempts(db: Conn, shopId: number, webhookId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// The two functions below serve the secrets module (start-up check, `shopd secrets rotate`), through
// service.ts; they never answer a request.

/** Every endpoint's sealed signing secret. */
export function listSealedWebhookSecrets(db: Conn): Promise<{ shop_id: number; id: number; secret: string }[]> {
  return db.selectFrom('webhook_endpoints').select(['shop_id', 'id', 'secret']).orderBy('id').execute();
}

export async function replaceSealedWebhookSecret(
  db: Conn,
  shopId: number,
  webhookId: number,
  sealed: string,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ secret: sealed })
    .where('shop_id', '=', shopId)
    .where('id', '=', webhookId)
    .execute();
}

/** Claims the delivery of this event to this endpoint for one attempt now, until `leaseUntil`. */
export function claimDeliveryOf(
  db: Conn,
  webhookId: number,
  eventId: string,
  leaseUntil: number,
): Promise<DeliveryRow> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivering', attempts: 1, next_attempt_at: leaseUntil })
    .where('webhook_id', '=', webhookId)
    .where('event_id', '=', eventId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The deliveries not settled yet, of every shop (the operator's metrics): how many, and when the oldest was queued. */
export async function unsettledDeliveries(db: Conn): Promise<{ count: number; oldestCreatedAt: number | null }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('status', 'in', ['pending', 'delivering'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldestCreatedAt: row.oldest === null ? null : Number(row.oldest) };
}

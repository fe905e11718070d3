import { sql, type Insertable, type Kysely } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { DeliveryRow, WebhookEndpointsTable, WebhookRow } from './webhooks.table.js';

type Conn = Kysely<Database>;

export function findWebhook(db: Conn, shopId: number, webhookId: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('shop_id', '=', shopId).where('id', '=', webhookId).executeTakeFirst();
}

export function listWebhooks(db: Conn, shopId: number, page: { limit: number; offset: number }): Promise<WebhookRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('shop_id', '=', shopId).orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function countWebhooks(db: Conn, shopId: number): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('shop_id', '=', shopId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertWebhook(db: Conn, row: Insertable<WebhookEndpointsTable>): Promise<WebhookRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateWebhook(db: Conn, shopId: number, webhookId: number, patch: { url?: string; events?: string; enabled?: number; disabled_reason?: string | null }): Promise<WebhookRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...patch, updated_at: Date.now() })
    .where('shop_id', '=', shopId)
    .where('id', '=', webhookId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteWebhook(db: Conn, shopId: number, webhookId: number): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('shop_id', '=', shopId).where('id', '=', webhookId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Enabled endpoints of the shop with their subscriptions, for fanning an event out. */
export function enabledWebhooks(db: Conn, shopId: number): Promise<{ id: number; events: string }[]> {
  return db.selectFrom('webhook_endpoints').select(['id', 'events']).where('shop_id', '=', shopId).where('enabled', '=', 1).execute();
}

export async function insertDeliveries(db: Conn, shopId: number, eventId: string, webhookIds: number[], now: number): Promise<void> {
  if (webhookIds.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(webhookIds.map((webhookId) => ({ shop_id: shopId, webhook_id: webhookId, event_id: eventId, next_attempt_at: now, created_at: now })))
    .execute();
}

/** Deliveries whose claim lapsed (a worker died mid-send) become due again. */
export async function recoverLapsedClaims(db: Conn, now: number): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'pending' }).where('status', '=', 'delivering').where('next_attempt_at', '<=', now).execute();
}

/**
 * Claims due deliveries that are the oldest unfinished one of their endpoint (in order per
 * endpoint), marking them `delivering` until `leaseUntil`. The conditional update makes a row
 * claimable by one worker only; on PostgreSQL rows another worker is claiming are skipped.
 */
export async function claimDue(db: Conn, now: number, leaseUntil: number, limit: number): Promise<DeliveryRow[]> {
  const due = db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as e')
            .select('e.id')
            .whereRef('e.webhook_id', '=', 'd.webhook_id')
            .whereRef('e.id', '<', 'd.id')
            .where('e.status', 'in', ['pending', 'delivering']),
        ),
      ),
    )
    .orderBy('d.id')
    .limit(limit)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked());
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivering', next_attempt_at: leaseUntil, attempts: sql`attempts + 1` })
    .where('id', 'in', due)
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

export async function finishDelivery(db: Conn, deliveryId: number, outcome: { status: 'succeeded' | 'failed' | 'pending'; nextAttemptAt?: number; now: number }): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      ...(outcome.nextAttemptAt !== undefined ? { next_attempt_at: outcome.nextAttemptAt } : {}),
      ...(outcome.status === 'succeeded' ? { delivered_at: outcome.now } : {}),
    })
    .where('id', '=', deliveryId)
    .where('status', '=', 'delivering')
    .execute();
}

export async function insertAttempt(
  db: Conn,
  a: { shopId: number; webhookId: number; deliveryId: number; eventId: string; eventType: string; attempt: number; statusCode: number | null; durationMs: number; error: string | null; now: number },
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
  const row = await db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).where('shop_id', '=', shopId).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findEvent(db: Conn, shopId: number, eventId: string) {
  return db.selectFrom('events').selectAll().where('shop_id', '=', shopId).where('id', '=', eventId).executeTakeFirstOrThrow();
}

// The two functions below serve the secrets module (start-up check, `shopd secrets rotate`), which
// handles the sealed secrets of every shop at once; they never answer a request.

/** Every endpoint's sealed signing secret. */
export function listSealedWebhookSecrets(db: Conn): Promise<{ shop_id: number; id: number; secret: string }[]> {
  return db.selectFrom('webhook_endpoints').select(['shop_id', 'id', 'secret']).orderBy('id').execute();
}

export async function replaceSealedWebhookSecret(db: Conn, shopId: number, webhookId: number, sealed: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ secret: sealed }).where('shop_id', '=', shopId).where('id', '=', webhookId).execute();
}

import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { hostedProviders } from '../shops/index.js';

type Conn = Kysely<Database>;

/** A buyer as the checkout's limits count it: its client net (clientNet; null without an IP) and its customer. */
export interface ClientKeys {
  net: string | null;
  customerId: number;
}

/** The invoices of this client: placed from its net, or for its customer (its e-mail address). */
function ofClient(client: ClientKeys) {
  return (eb: ExpressionBuilder<Database, 'invoices'>) =>
    client.net === null
      ? eb('invoices.customer_id', '=', client.customerId)
      : eb.or([eb('invoices.client_net', '=', client.net), eb('invoices.customer_id', '=', client.customerId)]);
}

/**
 * The key space of the per-client checkout locks ("hold" in ASCII), the first of PostgreSQL's two
 * 32-bit advisory lock keys; the second is a hash of the shop and the client's key. The shop lock
 * uses another space (shops/repository.ts SHOP_LOCK_SPACE).
 */
const CLIENT_LOCK_SPACE = 0x686f6c64;

/**
 * Serialises the checkouts of one client of one shop on PostgreSQL, for the rest of the
 * transaction: the shop lock a checkout holds is shared, so two checkouts of the same client run
 * at once, and both would count the client's pending orders before either wrote its own. Each key
 * (the net, the e-mail address) is locked, in the order of their lock keys, so that two clients
 * sharing one key never wait for each other in a cycle. A hash collision only makes two clients wait for
 * each other. SQLite runs one write transaction at a time: nothing to do. Keys are texts such as
 * `net:192.0.2.1` and `email:a@example.com`.
 */
export async function lockClient(db: Conn, shopId: number, keys: string[]): Promise<void> {
  if (!isPostgres(db)) return;
  const locks = [...new Set(keys.map((key) => lockKey(`${shopId}\u0000${key}`)))].sort((a, b) => a - b);
  for (const lock of locks)
    await sql`select pg_advisory_xact_lock(${CLIENT_LOCK_SPACE}::int4, ${lock}::int4)`.execute(db);
}

/** A signed 32-bit FNV-1a hash of the text. */
function lockKey(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text)) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash | 0;
}

/** When each of the client's pending orders of the shop expires (those not yet overdue at `now`). */
export async function pendingExpiries(db: Conn, shopId: number, client: ClientKeys, now: number): Promise<number[]> {
  const rows = await db
    .selectFrom('invoices')
    .select('expires_at')
    .where('shop_id', '=', shopId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .where(ofClient(client))
    .execute();
  return rows.map((r) => Number(r.expires_at));
}

/** The units of these products the client's pending orders hold, by product. */
export async function unitsHeld(
  db: Conn,
  shopId: number,
  client: ClientKeys,
  productIds: number[],
  now: number,
): Promise<Map<number, number>> {
  if (productIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('invoice_parts')
    .innerJoin('invoices', 'invoices.id', 'invoice_parts.invoice_id')
    .select(['invoice_parts.product_id', (eb) => eb.fn.sum<number | string>('invoice_parts.quantity').as('units')])
    .where('invoices.shop_id', '=', shopId)
    .where('invoice_parts.shop_id', '=', shopId)
    .where('invoices.status', '=', 'pending')
    .where('invoices.expires_at', '>', now)
    .where(ofClient(client))
    .where('invoice_parts.product_id', 'in', productIds)
    .groupBy('invoice_parts.product_id')
    .execute();
  return new Map(rows.map((r) => [r.product_id, Number(r.units)]));
}

/**
 * When the client's card and crypto checkouts of the shop since `since` were placed, newest
 * first, at most `limit` of them (any status: a cancelled or failed attempt counts too).
 */
export async function hostedCheckoutTimes(
  db: Conn,
  shopId: number,
  client: ClientKeys,
  since: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('invoices')
    .select('created_at')
    .where('shop_id', '=', shopId)
    .where('created_at', '>', since)
    .where('gateway', 'in', [...hostedProviders])
    .where(ofClient(client))
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.created_at));
}

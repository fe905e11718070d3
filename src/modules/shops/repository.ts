import type { Kysely, Updateable } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { hostName } from '../../http/storefront-url.js';
import type { ShopRow, ShopsTable } from './shops.table.js';

type Conn = Kysely<Database>;

/**
 * The shop with this id if this account owns it. The only way a request reaches a shop: every
 * owner request for a shop asks this.
 */
export function findShopOfAccount(db: Conn, accountId: number, shopId: number): Promise<ShopRow | undefined> {
  return db
    .selectFrom('shops')
    .selectAll()
    .where('id', '=', shopId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** A shop by id, for public paths where the id comes from the URL. */
export function findShopById(db: Conn, shopId: number): Promise<ShopRow | undefined> {
  return db.selectFrom('shops').selectAll().where('id', '=', shopId).executeTakeFirst();
}

/** A shop by its subdomain, for storefront addresses (`/s/{subdomain}/`, `{subdomain}.{STOREFRONT_DOMAIN}`). */
export function findShopBySubdomain(db: Conn, subdomain: string): Promise<ShopRow | undefined> {
  return db.selectFrom('shops').selectAll().where('subdomain', '=', subdomain).executeTakeFirst();
}

/**
 * A shop by its custom domain, for a request's Host: `host` is taken in any case, with a port
 * or a trailing dot (`Shop.Example.com:443` finds `shop.example.com`). One read of the unique
 * index on `custom_domain`.
 */
export function findShopByDomain(db: Conn, host: string): Promise<ShopRow | undefined> {
  const name = hostName(host);
  if (name === undefined) return Promise.resolve(undefined);
  return db.selectFrom('shops').selectAll().where('custom_domain', '=', name).executeTakeFirst();
}

/** A shop by id, for code that already holds its id from an authorised request. */
export function findShop(db: Conn, shopId: number): Promise<ShopRow> {
  return db.selectFrom('shops').selectAll().where('id', '=', shopId).executeTakeFirstOrThrow();
}

/**
 * Serialises writes to one shop's catalog inside a transaction, so check-then-write steps
 * (unique paths, listing sync) cannot interleave. SQLite transactions are already serial.
 *
 * Lock order on PostgreSQL: a transaction takes the shop lock before any row lock — owner
 * writes exclusively (here), order and stock writes shared (`shareShop`) — and the rollup lock
 * last. The exclusive lock also waits for, and blocks, the shared lock that every insert of a
 * row referencing the shop takes; a writer that locked a product or a variant first and then
 * inserted an event would wait for an owner who holds the shop and waits for that row.
 */
export async function lockShop(db: Conn, shopId: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('shops').select('id').where('id', '=', shopId).forUpdate().execute();
}

/**
 * The shared side of `lockShop`, first in every transaction that moves orders or stock
 * (checkout, completion, expiry or cancellation, replacement): many of them run at once, and
 * none interleaves its row locks with an owner's catalog write. SQLite: nothing to do.
 */
export async function shareShop(db: Conn, shopId: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('shops').select('id').where('id', '=', shopId).forKeyShare().execute();
}

export function listShopsOfAccount(db: Conn, accountId: number): Promise<ShopRow[]> {
  return db.selectFrom('shops').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').execute();
}

export function insertShop(
  db: Conn,
  shop: { accountId: number; name: string; subdomain: string; currency: string; now: number },
): Promise<ShopRow> {
  return db
    .insertInto('shops')
    .values({
      account_id: shop.accountId,
      name: shop.name,
      subdomain: shop.subdomain,
      currency: shop.currency,
      created_at: shop.now,
      updated_at: shop.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Whether a shop other than `shopId` has this custom domain. */
export async function domainTaken(db: Conn, domain: string, shopId: number): Promise<boolean> {
  const row = await db
    .selectFrom('shops')
    .select('id')
    .where('custom_domain', '=', domain)
    .where('id', '!=', shopId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function subdomainTaken(db: Conn, subdomain: string): Promise<boolean> {
  const row = await db.selectFrom('shops').select('id').where('subdomain', '=', subdomain).executeTakeFirst();
  return row !== undefined;
}

type ShopPatch = Omit<Updateable<ShopsTable>, 'id' | 'account_id' | 'created_at'>;

const updateShopQuery = (db: Conn, shopId: number, patch: ShopPatch) =>
  db
    .updateTable('shops')
    .set({ ...patch, updated_at: Date.now() })
    .where('id', '=', shopId);

export function updateShop(db: Conn, shopId: number, patch: ShopPatch): Promise<ShopRow> {
  return updateShopQuery(db, shopId, patch).returningAll().executeTakeFirstOrThrow();
}

/** Every shop's id, oldest first (operator commands over all shops). */
export async function allShopIds(db: Conn): Promise<number[]> {
  return (await db.selectFrom('shops').select('id').orderBy('id').execute()).map((r) => r.id);
}

import { type Expression, type Kysely, sql, type Updateable } from 'kysely';
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

/**
 * The id of the shop at a storefront address, compared as stored (subdomain, or custom domain),
 * as a subquery for a read that embeds it.
 */
export function shopIdAtAddress(db: Conn, address: { subdomain: string } | { domain: string }): Expression<number> {
  const query = db.selectFrom('shops').select('id');
  return (
    'subdomain' in address
      ? query.where('subdomain', '=', address.subdomain)
      : query.where('custom_domain', '=', address.domain)
  ).$asScalar();
}

/** The shop's clock, its UTC offset (minutes) and IANA time zone, as subqueries, for a statement that embeds them. */
export function shopClockColumns(
  db: Conn,
  shopId: number,
): { offsetMinutes: Expression<number>; timezone: Expression<string | null> } {
  return {
    offsetMinutes: db.selectFrom('shops').select('utc_offset_minutes').where('id', '=', shopId).$asScalar(),
    timezone: db.selectFrom('shops').select('timezone').where('id', '=', shopId).$asScalar(),
  };
}

/**
 * A `FOR KEY SHARE` lock of the shop's row on PostgreSQL, held until the transaction ends; SQLite
 * locks nothing, its write transactions are serial.
 */
export async function keyShareShop(db: Conn, shopId: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('shops').select('id').where('id', '=', shopId).forKeyShare().execute();
}

/** A shop by id, for code that already holds its id from an authorised request. */
export function findShop(db: Conn, shopId: number): Promise<ShopRow> {
  return db.selectFrom('shops').selectAll().where('id', '=', shopId).executeTakeFirstOrThrow();
}

/**
 * The first key of the shop locks (`lockShop`, `shareShop`): PostgreSQL's advisory locks of two
 * 32-bit keys, this one ("shop" in ASCII) then the shop's id. Other advisory locks of shopd use
 * the one 64-bit key form (accounts/first-owner.ts), a separate key space.
 */
const SHOP_LOCK_SPACE = 0x73686f70;

/*
 * Why advisory locks, not the shop row. The shop lock was `SELECT … FOR UPDATE` of the shops row
 * (owners) against `FOR KEY SHARE` of it (orders and stock). Row locks are not queued fairly: a
 * `FOR KEY SHARE` request does not look at waiters, only at the holders it conflicts with, so an
 * owner's `FOR UPDATE` waiting for the checkouts in progress is overtaken by every checkout that
 * starts meanwhile, and under steady checkout traffic the holders never all leave at once (an
 * owner's product edit once waited 110 s). Advisory locks live in the lock manager, which queues:
 * a request that conflicts with a request already waiting waits behind it. An owner's write now
 * waits only for the checkouts that hold the shop when it asks, and the checkouts that start after
 * it wait for it (docs: "Advisory Locks", and pg_locks shows them as `advisory`). Bench EDIT
 * (bench/owner-edit-under-load.ts): an edit beside a shop's checkouts took 2,021× its idle time
 * with the row lock (starved until the checkouts stopped), 10.5× with this one, about one
 * checkout's time; test/modules/concurrency.test.ts shows the queue order.
 *
 * They are transaction-scoped (released at commit or rollback, so safe behind a pooler in
 * transaction mode) and keyed per database: instances sharing one database in different schemas
 * share the keys of equal shop ids, which can make one wait for the other, never deadlock.
 */

/**
 * Serialises writes to one shop's catalog inside a transaction, so check-then-write steps
 * (unique paths, listing sync) cannot interleave. SQLite transactions are already serial.
 *
 * Lock order on PostgreSQL: a transaction takes the shop lock before any row lock — owner
 * writes exclusively (here), order and stock writes shared (`shareShop`) — and the rollup lock
 * last. A transaction asks for the shop lock first, holding nothing: once an owner is queued,
 * a later request for the shop waits behind it, so one asked for while holding a row that the
 * owner (or a checkout ahead of it) waits for would close a cycle. Unlike the row lock this
 * replaces, it does not touch the shops row: an insert referencing the shop (its foreign key's
 * `KEY SHARE` of the row) neither waits for an owner's lock nor holds it up.
 */
export async function lockShop(db: Conn, shopId: number): Promise<void> {
  if (isPostgres(db)) await sql`select pg_advisory_xact_lock(${SHOP_LOCK_SPACE}::int4, ${shopId}::int4)`.execute(db);
}

/**
 * The shared side of `lockShop`, first in every transaction that moves orders or stock
 * (checkout, completion, expiry or cancellation, replacement): many of them run at once, and
 * none interleaves its row locks with an owner's catalog write. Asked for again in the same
 * transaction (a balance change inside a completion), it is already held and waits for nothing.
 * SQLite: nothing to do.
 */
export async function shareShop(db: Conn, shopId: number): Promise<void> {
  if (isPostgres(db))
    await sql`select pg_advisory_xact_lock_shared(${SHOP_LOCK_SPACE}::int4, ${shopId}::int4)`.execute(db);
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

/** The hold on a subdomain a shop gave up, while it lasts (`held_until` after `now`). */
export function subdomainHold(
  db: Conn,
  subdomain: string,
  now: number,
): Promise<{ account_id: number; held_until: number } | undefined> {
  return db
    .selectFrom('released_subdomains')
    .select(['account_id', 'held_until'])
    .where('subdomain', '=', subdomain)
    .where('held_until', '>', now)
    .executeTakeFirst();
}

/** Holds a subdomain a shop gives up for its account until `heldUntil` (a later release replaces an earlier one). */
export async function holdSubdomain(
  db: Conn,
  row: { subdomain: string; shopId: number; accountId: number; now: number; heldUntil: number },
): Promise<void> {
  const values = {
    subdomain: row.subdomain,
    shop_id: row.shopId,
    account_id: row.accountId,
    released_at: row.now,
    held_until: row.heldUntil,
  };
  const { subdomain: _, ...changes } = values;
  await db
    .insertInto('released_subdomains')
    .values(values)
    .onConflict((oc) => oc.column('subdomain').doUpdateSet(changes))
    .execute();
}

/** Ends the hold on a subdomain (its account took it again). */
export async function endSubdomainHold(db: Conn, subdomain: string): Promise<void> {
  await db.deleteFrom('released_subdomains').where('subdomain', '=', subdomain).execute();
}

export async function subdomainTaken(db: Conn, subdomain: string): Promise<boolean> {
  const row = await db.selectFrom('shops').select('id').where('subdomain', '=', subdomain).executeTakeFirst();
  return row !== undefined;
}

type ShopPatch = Omit<Updateable<ShopsTable>, 'id' | 'account_id' | 'created_at'>;

const updateShopQuery = (db: Conn, shopId: number, patch: ShopPatch, now: number) =>
  db
    .updateTable('shops')
    .set({ ...patch, updated_at: now })
    .where('id', '=', shopId);

export function updateShop(db: Conn, shopId: number, patch: ShopPatch, now: number): Promise<ShopRow> {
  return updateShopQuery(db, shopId, patch, now).returningAll().executeTakeFirstOrThrow();
}

/** Every shop's id, oldest first (operator commands over all shops). */
/** The newest `limit` shops of the whole instance (for the operator's page at `/`), and how many there are. */
export async function shopDirectory(db: Conn, limit: number) {
  const [shops, count] = await Promise.all([
    db
      .selectFrom('shops')
      .select(['id', 'name', 'subdomain', 'custom_domain', 'custom_domain_verified_at'])
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('shops')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { shops, total: Number(count.n) };
}

export async function allShopIds(db: Conn): Promise<number[]> {
  return (await db.selectFrom('shops').select('id').orderBy('id').execute()).map((r) => r.id);
}

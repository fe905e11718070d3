import { randomBytes } from 'node:crypto';
import type { Expression, Kysely } from 'kysely';
import { constraintViolation } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { slugify } from '../../http/slug.js';
import { type LinkSettings, storefrontBase } from '../../http/storefront-url.js';
import { toIso } from '../../schemas/common.js';
import { toScaledInteger } from '../../schemas/money.js';
import { hashPassword } from '../../security/passwords.js';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../shared/locales.js';
import { shopClock } from '../../shared/shop-clock.js';
import { normalizeCustomDomain } from './custom-domains.js';
import { domainVerificationView, newDomainToken } from './domain-verification.js';
import * as repo from './repository.js';
import type { Shop } from './schema.js';
import type { ShopRow } from './shops.table.js';
import { reservedSubdomains, SUBDOMAIN } from './subdomains.js';

type Conn = Kysely<Database>;

/** What a shop's addresses are built from: `PUBLIC_URL` and `STOREFRONT_DOMAIN`. */
export type { LinkSettings };

/**
 * The owner's view of a shop. The setters below answer the stored row; the routes show it through
 * this, with the storefront address the server's link settings make of it.
 */
/**
 * The owner's view of a shop. `utcTimezoneOffset` is the shop's offset now: a shop with a time
 * zone reads its zone's (it changes with daylight saving), one without its fixed offset.
 */
export function toShop(ctx: Pick<Context, 'config' | 'clock'>, row: ShopRow): Shop {
  const links: LinkSettings = ctx.config;
  return {
    id: row.id,
    name: row.name,
    subdomain: row.subdomain,
    customDomain: row.custom_domain,
    domainVerification: domainVerificationView(row),
    storefrontUrl: storefrontBase(links, { subdomain: row.subdomain, customDomain: row.custom_domain }),
    currency: row.currency,
    onHold: row.on_hold === 1,
    popup: row.popup,
    terms: row.terms,
    utcTimezoneOffset: shopClock(row).offsetAt(ctx.clock.now()),
    timezone: row.timezone,
    passwordProtected: row.password_hash !== null,
    affiliatePercentage: row.affiliate_bps / 100,
    invoiceLifetimeMinutes: row.invoice_lifetime_minutes,
    language: isLocale(row.language) ? row.language : DEFAULT_LOCALE,
    createdAt: toIso(row.created_at),
  };
}

export function listShops(ctx: Context, accountId: number): Promise<ShopRow[]> {
  return repo.listShopsOfAccount(ctx.db, accountId);
}

/** A valid, non-reserved subdomain derived from the shop name. */
function subdomainBase(name: string): string {
  let base = slugify(name, 32);
  if (base === '') return `shop-${randomBytes(3).toString('hex')}`;
  if (base.length < 3 || reservedSubdomains.has(base)) base = `${base}-shop`;
  return SUBDOMAIN.test(base) ? base : `shop-${randomBytes(3).toString('hex')}`;
}

function* subdomainCandidates(base: string): Generator<string> {
  yield base;
  for (let n = 2; n <= 5; n++) yield `${base.slice(0, 32 - String(n).length - 1)}-${n}`;
  for (;;) yield `${base.slice(0, 25)}-${randomBytes(3).toString('hex')}`;
}

/** A shop the account made (an Idempotency-Key's replay of `createShop`); 404 when it is not the account's. */
export async function getOwnShop(ctx: Context, accountId: number, shopId: number): Promise<ShopRow> {
  const shop = await repo.findShopOfAccount(ctx.db, accountId, shopId);
  if (!shop) throw new NotFoundError('Shop');
  return shop;
}

/** Creates a shop with a unique subdomain derived from its name, currency USD and offset 0. */
export async function createShop(ctx: Context, accountId: number, input: { name: string }): Promise<ShopRow> {
  const name = input.name.trim();
  let attempts = 0;
  for (const subdomain of subdomainCandidates(subdomainBase(name))) {
    if (await repo.subdomainTaken(ctx.db, subdomain)) continue;
    const hold = await repo.subdomainHold(ctx.db, subdomain, ctx.clock.now());
    if (hold && hold.account_id !== accountId) continue;
    try {
      // One transaction with the Idempotency-Key's claim, if any: a retry after a crash answers this shop.
      return await ctx.db.transaction().execute(async (trx) => {
        const now = ctx.clock.now();
        const shop = await repo.insertShop(trx, { accountId, name, subdomain, currency: 'USD', now });
        await recordIdempotentWork(trx, shop.id);
        return shop;
      });
    } catch (err) {
      // Another shop took the subdomain between the check and the insert: try the next one.
      if (constraintViolation(err) !== 'unique' || ++attempts > 5) throw err;
    }
  }
  throw new Error('unreachable');
}

export async function renameShop(ctx: Context, shop: ShopRow, newName: string): Promise<ShopRow> {
  return repo.updateShop(ctx.db, shop.id, { name: newName.trim() }, ctx.clock.now());
}

/**
 * Updates a unique column of the shop (subdomain, custom domain). On PostgreSQL that row lock
 * conflicts with the key share every insert referencing the shop takes, and row locks queue
 * unfairly: under steady checkouts the update would wait for as long as they go on. The shop lock
 * taken first (lockShop: fair, and every checkout holds its shared side) lets the checkouts already
 * running finish and holds back new ones, so the update waits for those few only.
 */
function updateKeyColumn(
  ctx: Context,
  shopId: number,
  change: Parameters<typeof repo.updateShop>[2],
): Promise<ShopRow> {
  return ctx.db.transaction().execute(async (trx) => {
    await repo.lockShop(trx, shopId);
    return repo.updateShop(trx, shopId, change, ctx.clock.now());
  });
}

/**
 * Moves the shop to another subdomain. The one it leaves is held for the shop's account for
 * `SUBDOMAIN_HOLD_DAYS` (issue 36, L8): until then another account's shop gets a 409 saying
 * until when, so the links, bookmarks and mails still pointing there cannot be taken over at
 * once; the same account may take it back. A subdomain held for another account is also skipped
 * when a new shop's subdomain is chosen.
 */
export async function changeSubdomain(ctx: Context, shop: ShopRow, subdomain: string): Promise<ShopRow> {
  if (subdomain === shop.subdomain) return shop;
  const taken = new ConflictError('This subdomain is already taken.', ['newSubDomain: is already taken']);
  if (await repo.subdomainTaken(ctx.db, subdomain)) throw taken;
  const hold = await repo.subdomainHold(ctx.db, subdomain, ctx.clock.now());
  if (hold && hold.account_id !== shop.account_id) {
    const until = new Date(hold.held_until).toISOString();
    throw new ConflictError(`This subdomain was given up recently and is held for its former owner until ${until}.`, [
      `newSubDomain: is held for its former owner until ${until}`,
    ]);
  }
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await repo.lockShop(trx, shop.id);
      const now = ctx.clock.now();
      const holdMs = ctx.config.subdomainHoldDays * 86_400_000;
      if (holdMs > 0)
        await repo.holdSubdomain(trx, {
          subdomain: shop.subdomain,
          shopId: shop.id,
          accountId: shop.account_id,
          now,
          heldUntil: now + holdMs,
        });
      await repo.endSubdomainHold(trx, subdomain);
      return repo.updateShop(trx, shop.id, { subdomain }, now);
    });
  } catch (err) {
    if (constraintViolation(err) === 'unique') throw taken;
    throw err;
  }
}

export async function setPassword(ctx: Context, shop: ShopRow, password: string | null): Promise<ShopRow> {
  const passwordHash = password === null ? null : await hashPassword(password);
  return repo.updateShop(ctx.db, shop.id, { password_hash: passwordHash }, ctx.clock.now());
}

export async function setOnHold(ctx: Context, shop: ShopRow, onHold: boolean): Promise<ShopRow> {
  return repo.updateShop(ctx.db, shop.id, { on_hold: onHold ? 1 : 0 }, ctx.clock.now());
}

const emptyToNull = (text: string | null) => (text === null || text.trim() === '' ? null : text);

export async function setPopup(ctx: Context, shop: ShopRow, message: string | null): Promise<ShopRow> {
  return repo.updateShop(ctx.db, shop.id, { popup: emptyToNull(message) }, ctx.clock.now());
}

export async function setTerms(ctx: Context, shop: ShopRow, terms: string | null): Promise<ShopRow> {
  return repo.updateShop(ctx.db, shop.id, { terms: emptyToNull(terms) }, ctx.clock.now());
}

/** Percentage (the schema allows 0–100 in steps of 0.01; the decimals as written decide exactly), stored as basis points. */
export async function setAffiliatePercentage(ctx: Context, shop: ShopRow, percentage: number): Promise<ShopRow> {
  const bps = toScaledInteger(percentage, 2);
  if (bps === null) throw ValidationError.field('percentage', 'must have at most 2 decimals');
  return repo.updateShop(ctx.db, shop.id, { affiliate_bps: bps }, ctx.clock.now());
}

export async function setLanguage(ctx: Context, shop: ShopRow, language: Locale): Promise<ShopRow> {
  return repo.updateShop(ctx.db, shop.id, { language }, ctx.clock.now());
}

export async function setInvoiceLifetime(ctx: Context, shop: ShopRow, lifetimeMinutes: number): Promise<ShopRow> {
  return repo.updateShop(ctx.db, shop.id, { invoice_lifetime_minutes: lifetimeMinutes }, ctx.clock.now());
}

/**
 * Sets or clears (null) the custom domain: stored lower-case without a trailing dot; a malformed
 * or refused host is a 400 (custom-domains.ts), one another shop has is a 409.
 */
export async function setCustomDomain(ctx: Context, shop: ShopRow, domain: string | null): Promise<ShopRow> {
  const name = domain === null ? null : normalizeCustomDomain(domain, ctx.config);
  // The same domain again is a no-op, except for one set before verification existed: it gets its token.
  if (name === shop.custom_domain && (name === null || shop.custom_domain_token !== null)) return shop;
  const taken = new ConflictError('This domain is already used by another shop.', ['domain: is already taken']);
  if (name !== null && (await repo.domainTaken(ctx.db, name, shop.id))) throw taken;
  try {
    // A new domain needs its own proof (domain-verification.ts): a new token, not verified yet.
    return await updateKeyColumn(ctx, shop.id, {
      custom_domain: name,
      custom_domain_token: name === null ? null : newDomainToken(),
      custom_domain_verified_at: null,
    });
  } catch (err) {
    // Another shop took the domain between the check and the write.
    if (constraintViolation(err) === 'unique') throw taken;
    throw err;
  }
}

// What other modules read of a shop whose id they hold, and the shop lock. `db` is the caller's
// handle: inside its transaction, the transaction, so the read sees the shop as that transaction
// does (after its shop lock, what an owner's write committed before it).

/** A shop by id, for code that holds its id from an authorised request or from a row of the shop (none: a bug, it throws). */
export function findShop(db: Conn, shopId: number): Promise<ShopRow> {
  return repo.findShop(db, shopId);
}

/** The shop a public path names by its id (the id comes from the URL): 404 when there is none. */
export async function requireShop(db: Conn, shopId: number): Promise<ShopRow> {
  const shop = await repo.findShopById(db, shopId);
  if (!shop) throw new NotFoundError('Shop');
  return shop;
}

/**
 * The shop's storefront password hash: null when it has no password, and when there is no such
 * shop (a caller that goes on to read the shop answers its 404 then).
 */
export async function shopPasswordHash(db: Conn, shopId: number): Promise<string | null> {
  return (await repo.findShopById(db, shopId))?.password_hash ?? null;
}

/** The currency every amount kept in the shop currency is in (balances, prices), as `db` reads it now. */
export async function shopCurrency(db: Conn, shopId: number): Promise<string> {
  return (await repo.findShop(db, shopId)).currency;
}

/**
 * What the shop pays the referrer of an order of `total` minor units: its affiliate percentage of
 * the total, rounded down; 0 when it pays none.
 */
export async function affiliateCommission(db: Conn, shopId: number, total: number): Promise<number> {
  const { affiliate_bps: bps } = await repo.findShop(db, shopId);
  return bps === 0 ? 0 : Math.floor((total * bps) / 10_000);
}

/**
 * The shop at a storefront address: its subdomain, or its custom domain (a request's Host in any
 * case, with a port or a trailing dot). One read of a unique index; undefined when no shop has it.
 */
export function shopAtAddress(
  ctx: Context,
  address: { subdomain: string } | { domain: string },
): Promise<ShopRow | undefined> {
  return 'domain' in address
    ? repo.findShopByDomain(ctx.db, address.domain)
    : repo.findShopBySubdomain(ctx.db, address.subdomain);
}

/** Every shop's id, oldest first (operator commands over all shops). */
export function shopDirectory(db: Conn, limit: number) {
  return repo.shopDirectory(db, limit);
}

export function allShopIds(db: Conn): Promise<number[]> {
  return repo.allShopIds(db);
}

/**
 * Takes the shop lock exclusively, first in the transaction `db` and until it ends: an owner's
 * write to the shop's catalog or settings, whose check-then-write steps (unique paths, listing
 * sync) must not interleave with another writer's. The lock order, and why an advisory lock rather
 * than the shop row: repository.ts. SQLite: nothing to do, its write transactions are serial.
 */
export function lockShop(db: Conn, shopId: number): Promise<void> {
  return repo.lockShop(db, shopId);
}

/**
 * Takes the shop lock shared, first in the transaction `db`: every write that moves orders or
 * stock (checkout, completion, expiry or cancellation, replacement, refund, a balance change).
 * Many run at once; none interleaves its row locks with an owner's write (`lockShop`). Asked for
 * again in the same transaction it is already held and waits for nothing.
 */
export function shareShop(db: Conn, shopId: number): Promise<void> {
  return repo.shareShop(db, shopId);
}

/**
 * Holds the shop's row against a change of its keys until the transaction `db` ends (PostgreSQL:
 * a `FOR KEY SHARE` row lock, not the shop lock, so owners' writes do not hold it up; SQLite:
 * nothing, its write transactions are serial). For a transaction that later writes a row whose
 * foreign key names the shop while it holds a lock others wait for (the rollup state,
 * rollups/rollups.ts): PostgreSQL checks that key with the same key share, which asked for then,
 * behind a queued change of the shop's keys, could close a cycle of waits; held from the start,
 * the check waits for nothing.
 */
export function holdShopKeys(db: Conn, shopId: number): Promise<void> {
  return repo.keyShareShop(db, shopId);
}

/**
 * The shop's clock (its UTC offset in minutes and its IANA time zone) as subqueries, for a write
 * that records them in the same statement (the rollups' state, created on first use in the
 * shop's days).
 */
export function shopClockColumns(
  db: Conn,
  shopId: number,
): { offsetMinutes: Expression<number>; timezone: Expression<string | null> } {
  return repo.shopClockColumns(db, shopId);
}

/**
 * The id of the shop at a storefront address (its subdomain, or its custom domain as stored) as a
 * subquery, for a read that names the shop by its address and stays one statement (the invoice
 * page's status poll): it yields no row when no shop has the address.
 */
export function shopIdAtAddress(db: Conn, address: { subdomain: string } | { domain: string }): Expression<number> {
  return repo.shopIdAtAddress(db, address);
}

// The two writes below are steps of the settings module's currency and timezone changes
// (settings/service.ts), which rescale or rebuild other modules' data in the same transaction:
// `db` is that transaction and `now` its time.

/** Records the shop's new currency, once every amount kept in the shop currency has been rescaled to it. */
export function recordCurrency(db: Conn, shopId: number, currency: string, now: number): Promise<ShopRow> {
  return repo.updateShop(db, shopId, { currency }, now);
}

/** Records the shop's UTC offset (minutes), before the rollup rebuild in the new days starts. */
/** Records the shop's clock: an IANA time zone (with its offset now), or a fixed offset (`timezone` null). */
export function recordClock(
  db: Conn,
  shopId: number,
  clock: { offsetMinutes: number; timezone: string | null },
  now: number,
): Promise<ShopRow> {
  return repo.updateShop(db, shopId, { utc_offset_minutes: clock.offsetMinutes, timezone: clock.timezone }, now);
}

import { randomBytes } from 'node:crypto';
import { constraintViolation } from '../../db/database.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { slugify } from '../../http/slug.js';
import { type LinkSettings, storefrontBase } from '../../http/storefront-url.js';
import { toIso } from '../../schemas/common.js';
import { toScaledInteger } from '../../schemas/money.js';
import { hashPassword } from '../../security/passwords.js';
import { normalizeCustomDomain } from './custom-domains.js';
import * as repo from './repository.js';
import type { Shop } from './schema.js';
import type { ShopRow } from './shops.table.js';
import { reservedSubdomains, SUBDOMAIN } from './subdomains.js';

/** What a shop's addresses are built from: `PUBLIC_URL` and `STOREFRONT_DOMAIN`. */
export type { LinkSettings };

/**
 * The owner's view of a shop. The setters below answer the stored row; the routes show it through
 * this, with the storefront address the server's link settings make of it.
 */
export function toShop(links: LinkSettings, row: ShopRow): Shop {
  return {
    id: row.id,
    name: row.name,
    subdomain: row.subdomain,
    customDomain: row.custom_domain,
    storefrontUrl: storefrontBase(links, { subdomain: row.subdomain, customDomain: row.custom_domain }),
    currency: row.currency,
    onHold: row.on_hold === 1,
    popup: row.popup,
    terms: row.terms,
    utcTimezoneOffset: row.utc_offset_minutes,
    passwordProtected: row.password_hash !== null,
    affiliatePercentage: row.affiliate_bps / 100,
    invoiceLifetimeMinutes: row.invoice_lifetime_minutes,
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

export async function changeSubdomain(ctx: Context, shop: ShopRow, subdomain: string): Promise<ShopRow> {
  if (subdomain === shop.subdomain) return shop;
  const taken = new ConflictError('This subdomain is already taken.', ['newSubDomain: is already taken']);
  if (await repo.subdomainTaken(ctx.db, subdomain)) throw taken;
  try {
    return await updateKeyColumn(ctx, shop.id, { subdomain });
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

export async function setInvoiceLifetime(ctx: Context, shop: ShopRow, lifetimeMinutes: number): Promise<ShopRow> {
  return repo.updateShop(ctx.db, shop.id, { invoice_lifetime_minutes: lifetimeMinutes }, ctx.clock.now());
}

/**
 * Sets or clears (null) the custom domain: stored lower-case without a trailing dot; a malformed
 * or refused host is a 400 (custom-domains.ts), one another shop has is a 409.
 */
export async function setCustomDomain(ctx: Context, shop: ShopRow, domain: string | null): Promise<ShopRow> {
  const name = domain === null ? null : normalizeCustomDomain(domain, ctx.config);
  if (name === shop.custom_domain) return shop;
  const taken = new ConflictError('This domain is already used by another shop.', ['domain: is already taken']);
  if (name !== null && (await repo.domainTaken(ctx.db, name, shop.id))) throw taken;
  try {
    return await updateKeyColumn(ctx, shop.id, { custom_domain: name });
  } catch (err) {
    // Another shop took the domain between the check and the write.
    if (constraintViolation(err) === 'unique') throw taken;
    throw err;
  }
}

import type { Kysely } from 'kysely';
import { constraintViolation } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, UnprocessableError, ValidationError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import type { PageQuery } from '../../schemas/common.js';
import { currencyDigits } from '../../schemas/currencies.js';
import { parseDateBound } from '../../schemas/dates.js';
import { rescaleMinorUnits, toMinorUnits, toScaledInteger } from '../../schemas/money.js';
import { type ShopClock, shopClock } from '../../shared/shop-clock.js';
import { checkProductIds } from '../products/index.js';
import type { ShopRow } from '../shops/index.js';
import type { CouponRow } from './coupons.table.js';
import * as repo from './repository.js';
import type { CouponInput } from './schema.js';
import { toCoupon } from './views.js';

type Conn = Kysely<Database>;

const nameTaken = () => new ConflictError('This coupon code is already taken.', ['name: is already taken']);

/**
 * A percentage → basis points (12.34 → 1234). The schema bounds it (at most 100, a multiple of
 * 0.01 to within binary floating point); the decimals as written decide exactly.
 */
function toBasisPoints(percentage: number): number {
  const bps = toScaledInteger(percentage, 2);
  if (bps === null) throw ValidationError.field('discount', 'must have at most 2 decimals for a percentage');
  return bps;
}

function parseDate(value: string | null | undefined, field: string, clock: ShopClock, end: boolean): number | null {
  return value === null || value === undefined ? null : parseDateBound(value, field, clock, end);
}

/** The input's columns, checked for everything that needs no database: discount, dates. */
function couponColumns(input: CouponInput, shop: ShopRow) {
  const currency = shop.currency;
  const clock = shopClock(shop);
  const startAt = parseDate(input.startDate, 'startDate', clock, false);
  const endAt = parseDate(input.endDate, 'endDate', clock, true);
  if (startAt !== null && endAt !== null && startAt > endAt)
    throw ValidationError.field('endDate', 'must not be before startDate');
  return {
    name: input.name,
    name_key: input.name.toLowerCase(),
    note: input.note ?? null,
    is_fixed: input.isFixed ? 1 : 0,
    discount: input.isFixed ? toMinorUnits(input.discount, currency, 'discount') : toBasisPoints(input.discount),
    start_at: startAt,
    end_at: endAt,
    restrict_products: JSON.stringify(input.restrictToProducts ?? []),
    restrict_gateways: JSON.stringify(input.restrictToGateways ?? []),
    max_uses: input.maxUses ?? null,
  };
}

/**
 * 400 naming every `restrictToProducts[i]` that is not a product of this shop (the schema
 * refuses repeats). Ids already on the coupon stay accepted, so a coupon whose product was
 * deleted can still be saved as read.
 */
function checkRestrictedProducts(
  db: Conn,
  shopId: number,
  productIds: number[],
  alreadyOnCoupon: number[] = [],
): Promise<void> {
  return checkProductIds(db, shopId, productIds, 'restrictToProducts', new Set(alreadyOnCoupon));
}

async function checkNameFree(db: Conn, shopId: number, nameKey: string, couponId?: number): Promise<void> {
  const holder = await repo.findCouponByNameKey(db, shopId, nameKey);
  if (holder && holder.id !== couponId) throw nameTaken();
}

/** Runs a write whose unique index on the code may still fire under a race: that is the same 409. */
async function withUniqueName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (constraintViolation(err) === 'unique') throw nameTaken();
    throw err;
  }
}

async function requireCoupon(db: Conn, shopId: number, couponId: number): Promise<CouponRow> {
  const coupon = await repo.findCoupon(db, shopId, couponId);
  if (!coupon) throw new NotFoundError('Coupon');
  return coupon;
}

export async function getCoupon(ctx: Context, shop: ShopRow, couponId: number) {
  return toCoupon(await requireCoupon(ctx.db, shop.id, couponId), shop.currency);
}

export async function listCoupons(ctx: Context, shop: ShopRow, query: PageQuery) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  const [rows, totalCount] = await Promise.all([
    repo.listCoupons(db, shop.id, { search: query.searchString, limit, offset }),
    repo.countCoupons(db, shop.id, query.searchString),
  ]);
  return toPage(
    rows.map((c) => toCoupon(c, shop.currency)),
    totalCount,
    query,
  );
}

export async function createCoupon(ctx: Context, shop: ShopRow, input: CouponInput) {
  const columns = couponColumns(input, shop);
  const coupon = await withUniqueName(() =>
    ctx.db.transaction().execute(async (trx) => {
      await checkRestrictedProducts(trx, shop.id, input.restrictToProducts ?? []);
      await checkNameFree(trx, shop.id, columns.name_key);
      const now = ctx.clock.now();
      return repo.insertCoupon(trx, { ...columns, shop_id: shop.id, created_at: now, updated_at: now });
    }),
  );
  return toCoupon(coupon, shop.currency);
}

/** Full update: omitted optional fields go back to their defaults; `uses` is kept. */
export async function updateCoupon(ctx: Context, shop: ShopRow, couponId: number, input: CouponInput) {
  const columns = couponColumns(input, shop);
  const coupon = await withUniqueName(() =>
    ctx.db.transaction().execute(async (trx) => {
      const current = await requireCoupon(trx, shop.id, couponId);
      await checkRestrictedProducts(
        trx,
        shop.id,
        input.restrictToProducts ?? [],
        JSON.parse(current.restrict_products) as number[],
      );
      await checkNameFree(trx, shop.id, columns.name_key, couponId);
      const updated = await repo.updateCoupon(trx, shop.id, couponId, columns, ctx.clock.now());
      if (updated) return updated;
      const { uses } = await requireCoupon(trx, shop.id, couponId);
      throw new ConflictError('maxUses is below the uses the coupon already has.', [
        `maxUses: must not be below the current uses (${uses})`,
      ]);
    }),
  );
  return toCoupon(coupon, shop.currency);
}

/** Invoices that held the coupon keep its code; their link to it is cleared. */
export async function deleteCoupon(ctx: Context, shop: ShopRow, couponId: number) {
  if ((await repo.deleteCoupon(ctx.db, shop.id, couponId)) === 0) throw new NotFoundError('Coupon');
  return { id: couponId, deleted: true as const };
}

/**
 * Re-expresses fixed discounts when the shop changes currency, by the rule prices follow
 * (rescaleMinorUnits: the major-unit number stays). Part of the currency change transaction, on
 * its handle and at its time.
 */
export async function rescaleFixedDiscounts(
  db: Conn,
  shopId: number,
  fromCurrency: string,
  toCurrency: string,
  now: number,
): Promise<void> {
  if (currencyDigits(fromCurrency) === currencyDigits(toCurrency)) return;
  for (const coupon of await repo.listFixedCoupons(db, shopId)) {
    const discount = rescaleMinorUnits(coupon.discount, fromCurrency, toCurrency);
    await repo.setDiscount(db, shopId, coupon.id, discount, now);
  }
}

// ---- For checkout --------------------------------------------------------------------------

/** The coupon with this code (case-insensitive) in the shop, or undefined. */
export function findCouponByCode(db: Conn, shopId: number, code: string): Promise<CouponRow | undefined> {
  return repo.findCouponByNameKey(db, shopId, code.toLowerCase());
}

const refused = (reason: string) => new UnprocessableError(`The coupon ${reason}.`, [`coupon: ${reason}`]);

/**
 * Pure: the discount in minor units for an order, or throws UnprocessableError (422) naming
 * `coupon` with the reason: not started, expired, exhausted (uses >= maxUses), not valid for
 * these products (when restricted: at least one part's product must be in the list, and the
 * discount applies only to the subtotal of the matching parts), not valid for this gateway.
 * Percentage: floor(eligibleSubtotal * bps / 10000). Fixed: min(discount, eligibleSubtotal).
 */
export function couponDiscount(
  coupon: CouponRow,
  order: { parts: { productId: number; total: number }[]; gateway: string; now: number },
): number {
  if (coupon.start_at !== null && order.now < coupon.start_at) throw refused('is not valid yet');
  if (coupon.end_at !== null && order.now > coupon.end_at) throw refused('has expired');
  if (coupon.max_uses !== null && coupon.uses >= coupon.max_uses) throw refused('has been used up');
  const products = JSON.parse(coupon.restrict_products) as number[];
  const eligible = products.length === 0 ? order.parts : order.parts.filter((p) => products.includes(p.productId));
  if (eligible.length === 0 && products.length > 0) throw refused('is not valid for these products');
  const gateways = JSON.parse(coupon.restrict_gateways) as string[];
  if (gateways.length > 0 && !gateways.includes(order.gateway)) throw refused('is not valid for this gateway');
  const subtotal = eligible.reduce((sum, p) => sum + p.total, 0);
  if (coupon.is_fixed === 1) return Math.min(coupon.discount, subtotal);
  // BigInt: subtotal × basis points can pass 2^53 on large orders.
  return Number((BigInt(subtotal) * BigInt(coupon.discount)) / 10_000n);
}

/**
 * Atomically takes one use: `update ... set uses = uses + 1 where id = ? and shop_id = ? and
 * (max_uses is null or uses < max_uses)`; false when exhausted.
 */
export function claimCouponUse(db: Conn, shopId: number, couponId: number): Promise<boolean> {
  return repo.incrementUses(db, shopId, couponId);
}

/** Gives a use back (invoice expired or cancelled); never below zero. */
export function releaseCouponUse(db: Conn, shopId: number, couponId: number): Promise<void> {
  return repo.decrementUses(db, shopId, couponId);
}

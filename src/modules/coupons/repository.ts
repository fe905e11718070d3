import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import type { CouponRow, CouponsTable } from './coupons.table.js';

type Conn = Kysely<Database>;
type CouponPatch = Omit<Updateable<CouponsTable>, 'id' | 'shop_id' | 'uses' | 'created_at' | 'updated_at'>;

export function findCoupon(db: Conn, shopId: number, couponId: number): Promise<CouponRow | undefined> {
  return db
    .selectFrom('coupons')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', couponId)
    .executeTakeFirst();
}

/** The coupon whose lower-cased code is `nameKey`. */
export function findCouponByNameKey(db: Conn, shopId: number, nameKey: string): Promise<CouponRow | undefined> {
  return db
    .selectFrom('coupons')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('name_key', '=', nameKey)
    .executeTakeFirst();
}

export function insertCoupon(db: Conn, row: Insertable<CouponsTable>): Promise<CouponRow> {
  return db.insertInto('coupons').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * Replaces the coupon's fields, unless `max_uses` would drop below the current `uses`: the
 * condition is part of the update, so a use claimed meanwhile cannot slip past it.
 * Undefined when the row was left alone (gone, or too many uses).
 */
export function updateCoupon(
  db: Conn,
  shopId: number,
  couponId: number,
  patch: CouponPatch & { max_uses: number | null },
  now: number,
): Promise<CouponRow | undefined> {
  let query = db
    .updateTable('coupons')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', couponId);
  if (patch.max_uses !== null) query = query.where('uses', '<=', patch.max_uses);
  return query.returningAll().executeTakeFirst();
}

export async function deleteCoupon(db: Conn, shopId: number, couponId: number): Promise<number> {
  const result = await db
    .deleteFrom('coupons')
    .where('shop_id', '=', shopId)
    .where('id', '=', couponId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One page of the shop's coupons, newest first. */
export function listCoupons(
  db: Conn,
  shopId: number,
  options: { search?: string | undefined; limit: number; offset: number },
): Promise<CouponRow[]> {
  let query = db.selectFrom('coupons').selectAll().where('shop_id', '=', shopId);
  if (options.search) query = query.where(containsText('name', options.search));
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
}

export async function countCoupons(db: Conn, shopId: number, search?: string): Promise<number> {
  let query = db
    .selectFrom('coupons')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_id', '=', shopId);
  if (search) query = query.where(containsText('name', search));
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Takes one use if any is left; false when the coupon is exhausted (or not of this shop). */
export async function incrementUses(db: Conn, shopId: number, couponId: number): Promise<boolean> {
  const result = await db
    .updateTable('coupons')
    .set((eb) => ({ uses: eb('uses', '+', 1) }))
    .where('shop_id', '=', shopId)
    .where('id', '=', couponId)
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives one use back; never below zero. */
export async function decrementUses(db: Conn, shopId: number, couponId: number): Promise<void> {
  await db
    .updateTable('coupons')
    .set((eb) => ({ uses: eb('uses', '-', 1) }))
    .where('shop_id', '=', shopId)
    .where('id', '=', couponId)
    .where('uses', '>', 0)
    .execute();
}

/** Fixed-discount coupons of the shop, for re-expressing them in a new currency. */
export function listFixedCoupons(db: Conn, shopId: number): Promise<Pick<CouponRow, 'id' | 'discount'>[]> {
  return db
    .selectFrom('coupons')
    .select(['id', 'discount'])
    .where('shop_id', '=', shopId)
    .where('is_fixed', '=', 1)
    .execute();
}

export async function setDiscount(
  db: Conn,
  shopId: number,
  couponId: number,
  discount: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('coupons')
    .set({ discount, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', couponId)
    .execute();
}

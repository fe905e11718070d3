import type { Context } from '../../domain/context.js';
import { ValidationError } from '../../http/errors.js';
import type { SecretBox } from '../../security/secret-box.js';
import { canonicalTimeZone, zoneClock } from '../../shared/shop-clock.js';
import { rescaleFixedDiscounts } from '../coupons/index.js';
import { rescaleCustomerMoney } from '../customers/index.js';
import { getDesign } from '../design/index.js';
import { rescalePrices } from '../products/index.js';
import { protectionOf } from '../protection/index.js';
import { rebuildInBackground, startRollupRebuild } from '../rollups/index.js';
import { lockShop, recordClock, recordCurrency, type ShopRow, shopCurrency, toShop } from '../shops/index.js';
import * as payments from './payment-settings.js';

// The settings that reach beyond the shop row: reading them all, and the currency and timezone
// changes that rescale or rebuild other modules' data. The settings that only change the shop row
// are in shops/service.ts.

export async function getSettings(ctx: Context, secrets: SecretBox, shop: ShopRow) {
  const [paymentViews, design, protection] = await Promise.all([
    payments.getPaymentViews(ctx.db, secrets, shop.id),
    getDesign(ctx.db, shop.id),
    protectionOf(ctx.db, shop.id),
  ]);
  return { ...toShop(ctx, shop), payments: paymentViews, design, protection };
}

/**
 * Changes the currency. Every amount kept in the shop currency keeps its major-unit number
 * (rescaleMinorUnits): prices, fixed coupon discounts, customer balances and totals. Invoices
 * keep the currency they were made in.
 */
export async function changeCurrency(ctx: Context, shop: ShopRow, currency: string): Promise<ShopRow> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const now = ctx.clock.now();
    const current = await shopCurrency(trx, shop.id);
    await rescalePrices(trx, shop.id, current, currency, now);
    await rescaleFixedDiscounts(trx, shop.id, current, currency, now);
    await rescaleCustomerMoney(trx, shop.id, current, currency);
    return recordCurrency(trx, shop.id, currency, now);
  });
}

/**
 * Sets the shop's clock, in one short transaction: an IANA time zone (`timezone`), or a fixed UTC
 * offset (`utcTimezoneOffset`), exactly one of them. A zone is stored as the time zone list spells
 * it, with its offset now (what a reader of the bare offset gets when it asks for no time). The
 * dashboard rollups are kept per shop-local day: the shop's are rebuilt in the new days by a
 * background job in bounded batches (rollups/rollups.ts), so no transaction holds the write
 * connection for long, whatever the shop's size; dashboards say `rollupsRebuilding` until it ends.
 */
export async function setTimezone(
  ctx: Context,
  shop: ShopRow,
  body: { timezone?: string | null | undefined; utcTimezoneOffset?: number | undefined },
  log: { error(obj: object, msg: string): void },
): Promise<ShopRow> {
  const clock = clockOfBody(body, ctx.clock.now());
  const { row, rebuild } = await ctx.db.transaction().execute(async (trx) => {
    const row = await recordClock(trx, shop.id, clock, ctx.clock.now());
    // After the shop row: the rollup lock comes last (docs/internals.md, the lock order).
    return { row, rebuild: await startRollupRebuild(trx, shop.id, clock) };
  });
  if (rebuild)
    rebuildInBackground(ctx.db, shop.id, (err) =>
      log.error({ err, shopId: shop.id }, 'rollup rebuild failed; resumed at the next start'),
    );
  return row;
}

/** The clock a timezone body asks for, or a 400 naming what is wrong with it. */
function clockOfBody(
  body: { timezone?: string | null | undefined; utcTimezoneOffset?: number | undefined },
  now: number,
): { offsetMinutes: number; timezone: string | null } {
  if (body.timezone === undefined || body.timezone === null) {
    if (body.utcTimezoneOffset === undefined)
      throw ValidationError.field('utcTimezoneOffset', 'is required without a timezone');
    return { offsetMinutes: body.utcTimezoneOffset, timezone: null };
  }
  if (body.utcTimezoneOffset !== undefined)
    throw ValidationError.field(
      'utcTimezoneOffset',
      "must be left out with a timezone (the zone's own offset is used)",
    );
  const timezone = canonicalTimeZone(body.timezone);
  if (timezone === null)
    throw ValidationError.field(
      'timezone',
      'is not a time zone this server knows (an IANA name such as Europe/Berlin)',
    );
  return { offsetMinutes: zoneClock(timezone).offsetAt(now), timezone };
}

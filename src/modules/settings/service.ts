import type { Context } from '../../domain/context.js';
import type { SecretBox } from '../../security/secret-box.js';
import { rescaleFixedDiscounts } from '../coupons/index.js';
import { rescaleCustomerMoney } from '../customers/index.js';
import { getDesign } from '../design/index.js';
import { rescalePrices } from '../products/index.js';
import { protectionOf } from '../protection/index.js';
import { rebuildInBackground, startRollupRebuild } from '../rollups/index.js';
import { lockShop, recordCurrency, recordUtcOffset, type ShopRow, shopCurrency, toShop } from '../shops/index.js';
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
  return { ...toShop(ctx.config, shop), payments: paymentViews, design, protection };
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
 * Changes the UTC offset, in one short transaction. The dashboard rollups are kept per
 * shop-local day: the shop's are rebuilt in the new days by a background job in bounded batches
 * (rollups/rollups.ts), so no transaction holds the write connection for long, whatever the
 * shop's size; dashboards say `rollupsRebuilding` until it ends.
 */
export async function setTimezone(
  ctx: Context,
  shop: ShopRow,
  utcTimezoneOffset: number,
  log: { error(obj: object, msg: string): void },
): Promise<ShopRow> {
  const { row, rebuild } = await ctx.db.transaction().execute(async (trx) => {
    const row = await recordUtcOffset(trx, shop.id, utcTimezoneOffset, ctx.clock.now());
    // After the shop row: the rollup lock comes last (docs/internals.md, the lock order).
    return { row, rebuild: await startRollupRebuild(trx, shop.id, utcTimezoneOffset) };
  });
  if (rebuild)
    rebuildInBackground(ctx.db, shop.id, (err) =>
      log.error({ err, shopId: shop.id }, 'rollup rebuild failed; resumed at the next start'),
    );
  return row;
}

import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { lockShop } from '../shops/index.js';
import * as repo from './repository.js';
import { MAX_RESTOCK_SERIALS, MAX_SERIAL_LENGTH, type RestockBody } from './schema.js';
import { parseSerials } from './variant-input.js';

export interface RestockResult {
  added: string[];
  duplicates: string[];
  alreadySold: string[];
  stock: number;
}

/**
 * Appends serials to a serials variant without the rest of the product (issue 21), in one
 * transaction under the shop's catalog lock, so two restocks of the same keys at once add each
 * key once: the second sees the first's rows. A key the variant holds (in stock, or reserved by a
 * pending invoice) or the request repeats is a duplicate; one it delivered before is refused as
 * already sold (a serial is delivered at most once, ever). The stock count moves with the rows
 * (insertSerials), so the listings and the next sale see it at once.
 */
export async function restockSerials(
  ctx: Context,
  shopId: number,
  productId: number,
  variantId: number,
  input: RestockBody,
): Promise<RestockResult> {
  const values = parseSerials(input.serials, input.delimiter ?? '\n', false);
  if (values.length > MAX_RESTOCK_SERIALS)
    throw ValidationError.field(
      'serials',
      `must hold at most ${MAX_RESTOCK_SERIALS} serials in one call (this holds ${values.length})`,
    );
  const tooLong = values.findIndex((v) => v.length > MAX_SERIAL_LENGTH);
  if (tooLong !== -1)
    throw ValidationError.field('serials', `serial ${tooLong + 1} is longer than ${MAX_SERIAL_LENGTH} characters`);

  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shopId);
    if (!(await repo.findProduct(trx, shopId, productId))) throw new NotFoundError('Product');
    const variant = await repo.findLiveVariant(trx, shopId, productId, variantId);
    if (!variant) throw new NotFoundError('Variant');
    if (variant.product_type !== 'serials')
      throw new ConflictError(
        `This variant delivers ${variant.product_type}, not serials: it has no serials to add to.`,
        [`variantId: is a ${variant.product_type} variant, not a serials one`],
      );

    const held = new Set<string>();
    const sold = new Set<string>();
    for (const serial of await repo.serialStatuses(trx, shopId, variantId))
      (serial.status === 'delivered' ? sold : held).add(serial.value);
    const result: RestockResult = { added: [], duplicates: [], alreadySold: [], stock: 0 };
    const seen = new Set<string>();
    for (const value of values) {
      if (sold.has(value)) result.alreadySold.push(value);
      else if (held.has(value) || seen.has(value)) result.duplicates.push(value);
      else result.added.push(value);
      seen.add(value);
    }
    await repo.insertSerials(trx, shopId, variantId, result.added, ctx.clock.now());
    result.stock = (await repo.findVariant(trx, shopId, variantId))!.available_serials;
    return result;
  });
}

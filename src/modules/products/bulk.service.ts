import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context, WriteContext } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { NotFoundError, UnprocessableError } from '../../http/errors.js';
import type { FileStorage } from '../../storage/file-storage.js';
import { lockShop, paymentProviderNames } from '../shops/index.js';
import * as repo from './repository.js';
import type { BulkBodies } from './schema.js';
import { chatIntegrationOf, deleteProducts, removeFiles } from './service.js';
import { prepareCustomFields, type StoredGateway } from './variant-input.js';

type Conn = Kysely<Database>;

/**
 * Bulk edits over 1–500 products. All or nothing: one transaction, and when any id is not a
 * live product of this shop the call is a 404 that changes nothing. `apply` is given the
 * transaction, the edit's time and the transaction's context (a deletion emits its event on it).
 */
async function inBulk<T>(
  ctx: Context,
  shopId: number,
  productIds: number[],
  apply: (trx: Conn, ids: number[], now: number, tx: WriteContext) => Promise<T>,
): Promise<T> {
  const ids = [...new Set(productIds)];
  return writeTransaction(ctx, async (tx) => {
    const trx = tx.db;
    await lockShop(trx, shopId);
    const found = await repo.existingProductIds(trx, shopId, ids);
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new NotFoundError('Product', [`productIds: no product ${missing.join(', ')} in this shop`]);
    return apply(trx, ids, ctx.clock.now(), tx);
  });
}

type Body<K extends keyof typeof BulkBodies> = Static<(typeof BulkBodies)[K]>;

export function setCustomFields(ctx: Context, shopId: number, body: Body<'customFields'>) {
  const fields = JSON.stringify(prepareCustomFields(body.customFields, 'customFields'));
  return inBulk(ctx, shopId, body.productIds, async (trx, ids, now) => {
    await repo.updateVariantsOfProducts(trx, shopId, ids, { custom_fields: fields }, now);
    return { updated: ids.length };
  });
}

export function setCustomerNote(ctx: Context, shopId: number, body: Body<'customerNote'>) {
  const note = body.note === '' ? null : body.note;
  return inBulk(ctx, shopId, body.productIds, async (trx, ids, now) => ({
    updated: await repo.updateProducts(trx, shopId, ids, { customer_note: note }, now),
  }));
}

/** Sets the flags given (the schema requires at least one); null or omitted keeps a flag. */
export function setVisibility(ctx: Context, shopId: number, body: Body<'visibility'>) {
  const patch = {
    ...(body.unlisted == null ? {} : { unlisted: body.unlisted ? 1 : 0 }),
    ...(body.private == null ? {} : { private: body.private ? 1 : 0 }),
    ...(body.onHold == null ? {} : { on_hold: body.onHold ? 1 : 0 }),
  };
  return inBulk(ctx, shopId, body.productIds, async (trx, ids, now) => ({
    updated: await repo.updateProducts(trx, shopId, ids, patch, now),
  }));
}

export function setChatIntegration(ctx: Context, shopId: number, body: Body<'chatIntegration'>) {
  const value = JSON.stringify(chatIntegrationOf(body.chatIntegration));
  return inBulk(ctx, shopId, body.productIds, async (trx, ids, now) => ({
    updated: await repo.updateProducts(trx, shopId, ids, { chat_integration: value }, now),
  }));
}

/** Deletes the products, then their image files once that has committed. */
export async function deleteMany(ctx: Context, storage: FileStorage, shopId: number, body: Body<'delete'>) {
  const { ids, images } = await inBulk(ctx, shopId, body.productIds, async (_trx, ids, now, tx) => ({
    ids,
    images: await deleteProducts(tx, shopId, ids, now),
  }));
  await removeFiles(storage, images);
  return { updated: ids.length };
}

/**
 * `gatewaysList: { <gateway>: true | false }` adds or removes gateways on every variant of the
 * products (the schema allows only gateway names, at least one). A variant with no explicit
 * list (every enabled gateway) first becomes the full list; one left with none is a 422.
 */
export function setPaymentMethods(ctx: Context, shopId: number, body: Body<'paymentMethods'>) {
  const toggles = Object.entries(body.gatewaysList);
  return inBulk(ctx, shopId, body.productIds, async (trx, ids, now) => {
    for (const variant of await repo.listVariants(trx, shopId, ids)) {
      const stored = JSON.parse(variant.gateways) as StoredGateway[];
      let list =
        stored.length > 0
          ? stored
          : paymentProviderNames.map((gateway) => ({ gateway, rules: { blockVpn: false }, price: null }));
      for (const [gateway, allowed] of toggles) {
        const present = list.some((g) => g.gateway === gateway);
        if (allowed && !present) list = [...list, { gateway, rules: { blockVpn: false }, price: null }];
        if (!allowed) list = list.filter((g) => g.gateway !== gateway);
      }
      if (list.length === 0)
        throw new UnprocessableError('A variant would be left with no gateway.', [
          `gatewaysList: would leave variant ${variant.id} with no gateway`,
        ]);
      await repo.updateVariant(trx, shopId, variant.id, { gateways: JSON.stringify(list) }, now);
    }
    return { updated: ids.length };
  });
}

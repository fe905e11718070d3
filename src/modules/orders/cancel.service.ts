import type { Context } from '../../domain/context.js';
import { NotFoundError } from '../../http/errors.js';
import { endUnpaid, requireInvoice, withExpiryApplied } from './lifecycle.service.js';
import type { PaymentPort } from './order-options.js';
import * as repo from './repository.js';
import { assertTransition } from './state.js';

/**
 * Cancels a pending invoice, for its owner or its buyer, through the same transition as expiry
 * (`endUnpaid`): in one transaction the status moves, the reserved serials and counted stock come
 * back, the coupon use is returned and `invoice.cancelled` is written. Any other status is a 409,
 * also when the invoice was pending a moment ago and another request (a payment, an expiry, a
 * second cancel) ended it first: the status moves only from `pending`, so exactly one of them wins.
 * A pending invoice past its expiry is expired as it is read, and so is a 409 too. The provider's
 * payment page of a card or crypto order is closed afterwards (the payments port's closeHostedPayment).
 */
export async function cancelInvoice(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  payments: PaymentPort,
): Promise<void> {
  const invoice = await withExpiryApplied(ctx, await requireInvoice(ctx.db, shopId, invoiceId));
  assertTransition(invoice.status, 'cancelled');
  if (await endUnpaid(ctx, shopId, invoiceId, 'cancelled')) {
    await payments.closeHostedPayment(ctx, invoice);
    return;
  }
  const now = await requireInvoice(ctx.db, shopId, invoiceId);
  assertTransition(now.status, 'cancelled');
  throw new Error(`invoice ${invoiceId} is pending but could not be cancelled`);
}

/** The buyer's cancel: the invoice found by its unguessable id alone (404 when unknown), then as above. */
export async function cancelPublicInvoice(ctx: Context, invoiceId: string, payments: PaymentPort): Promise<void> {
  const invoice = await repo.findInvoiceById(ctx.db, invoiceId);
  if (!invoice) throw new NotFoundError('Invoice');
  await cancelInvoice(ctx, invoice.shop_id, invoice.id, payments);
}

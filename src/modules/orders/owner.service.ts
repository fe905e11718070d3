import type { Context } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { ConflictError, UnprocessableError, ValidationError } from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import { parseDateRange } from '../../schemas/dates.js';
import type { SecretBox } from '../../security/secret-box.js';
import { shopClock } from '../../shared/shop-clock.js';
import { downloadsOfInvoice } from '../files/index.js';
import type { LinkSettings } from '../mail/index.js';
import { DynamicDeliveryError, deliverUnits, dynamicDeliverable, takeUnits } from '../products/index.js';
import { countInvoicesCreatedIn } from '../rollups/index.js';
import { enabledGateway } from '../settings/index.js';
import type { ShopRow } from '../shops/index.js';
import { findShop, shareShop, shopIdAtAddress } from '../shops/index.js';
import { invoiceReplaced } from './domain-events.js';
import { feedbacksOfInvoices } from './invoice-feedbacks.js';
import { type PlacedOrder, queueDeliveryMail } from './invoice-mail.js';
import type { InvoiceStatus } from './invoices.table.js';
import {
  completeInvoice,
  dynamicOrderOf,
  expireOverdue,
  noteIfOutOfStock,
  requireInvoice,
  withExpiryApplied,
} from './lifecycle.service.js';
import type { OrderOptions } from './order-options.js';
import { invoiceUrl, ownerInvoiceView } from './owner-view.js';
import { listRefunds } from './payment.repository.js';
import * as repo from './repository.js';
import type { InvoiceListQuery } from './schema.js';
import { toOwnerInvoice, toPublicInvoice } from './views.js';

export async function getInvoice(ctx: Context, shop: ShopRow, invoiceId: string) {
  const invoice = await withExpiryApplied(ctx, await requireInvoice(ctx.db, shop.id, invoiceId));
  return ownerInvoiceView(ctx.db, invoice, ctx.config, shop);
}

const orders = {
  createdAt: { column: 'created_at', direction: 'asc' },
  '-createdAt': { column: 'created_at', direction: 'desc' },
  total: { column: 'total', direction: 'asc' },
  '-total': { column: 'total', direction: 'desc' },
} as const satisfies Record<NonNullable<InvoiceListQuery['orderBy']>, repo.InvoiceOrder>;

/**
 * Newest first unless `orderBy` says otherwise; `cursor` (keyset, any order) wins over
 * `pageNumber`. A cursor names its order (the default's excepted), so one from another order is
 * a 400. Overdue pending invoices are expired first.
 */
export async function listInvoices(ctx: Context, shop: ShopRow, query: InvoiceListQuery) {
  const { db } = ctx;
  const links = ctx.config;
  const { from, to } = parseDateRange(query, shopClock(shop));
  // The status filter, the counts (from rollups) and the rows must all see overdue invoices as expired.
  await expireOverdue(ctx, { shopId: shop.id });
  const filter = {
    status: query.status,
    gateway: query.gateway,
    from,
    to,
    search: query.searchString,
    customerId: query.customerId,
    productId: query.productId,
  };
  const orderBy = query.orderBy ?? '-createdAt';
  const order = orders[orderBy];
  const cursorOrder = orderBy === '-createdAt' ? undefined : orderBy;
  const { limit, offset } = pageWindow(query);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'number', 'string', cursorOrder);
  const [rows, totalCount] = await Promise.all([
    repo.listInvoices(db, shop.id, filter, { order, limit: limit + 1, offset, after }),
    totalCountOf(ctx, shop, filter),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (i) => ({ value: i[order.column], id: i.id }), cursorOrder);
  const ids = items.map((i) => i.id);
  const [parts, replacements, feedbacks, refunds] = await Promise.all([
    repo.listParts(db, shop.id, ids),
    repo.listReplacements(db, shop.id, ids),
    feedbacksOfInvoices(db, shop.id, ids),
    listRefunds(db, shop.id, ids),
  ]);
  const views = items.map((i) =>
    toOwnerInvoice(
      i,
      parts.filter((p) => p.invoice_id === i.id),
      replacements.filter((r) => r.invoice_id === i.id),
      feedbacks.find((f) => f.invoiceId === i.id),
      invoiceUrl(links, shop, i.id),
      refunds.filter((r) => r.invoice_id === i.id),
    ),
  );
  return { ...toPage(views, totalCount, query), nextCursor };
}

/**
 * The list's totalCount without counting the shop's invoices: whole local days from the
 * created-day rollups, the partial first and last days counted exactly here, through the
 * (shop, status, gateway, created_at) indexes. Filters the rollups cannot answer (search,
 * customer, product) fall back to an exact count.
 */
async function totalCountOf(ctx: Context, shop: ShopRow, filter: repo.InvoiceFilter): Promise<number> {
  const { db } = ctx;
  if (filter.search || filter.customerId !== undefined || filter.productId !== undefined)
    return repo.countInvoices(db, shop.id, filter);
  const byStatus = { status: filter.status, gateway: filter.gateway };
  return countInvoicesCreatedIn(ctx, shop, filter, byStatus, (edge) =>
    repo.countInvoices(db, shop.id, { ...byStatus, from: edge.from, to: edge.to }),
  );
}

/** The owner marks a pending invoice paid: completes and delivers it (409 in any other status). */
export async function processInvoice(
  ctx: Context,
  shop: ShopRow,
  invoiceId: string,
  options: OrderOptions,
  paymentReference?: string | null,
) {
  await completeInvoice(ctx, shop.id, invoiceId, options, {
    source: 'owner',
    reference: paymentReference?.trim() || null,
  });
  return getInvoice(ctx, shop, invoiceId);
}

/**
 * Delivers `quantity` fresh items of a completed part's variant at no charge: new serials,
 * the service text again, or a new dynamic answer. Out of stock is a 422 and changes nothing.
 */
export async function replaceItems(
  ctx: Context,
  shop: ShopRow,
  invoiceId: string,
  input: { partInvoiceId: number; quantity: number },
  options: OrderOptions,
) {
  const { db } = ctx;
  const invoice = await requireInvoice(db, shop.id, invoiceId);
  if (invoice.status !== 'completed')
    throw new ConflictError(`The invoice is ${invoice.status}; only completed invoices get replacements.`, [
      `status: is ${invoice.status}`,
    ]);
  const part = (await repo.listParts(db, shop.id, [invoiceId])).find((p) => p.id === input.partInvoiceId);
  if (!part) throw ValidationError.field('partInvoiceId', 'is not a part of this invoice');
  if (input.quantity > part.quantity)
    throw new UnprocessableError('More items than the part holds.', [
      `quantity: must be at most ${part.quantity}, the part quantity`,
    ]);
  let answer: string | undefined;
  if (part.product_type === 'dynamic') {
    try {
      answer = await dynamicDeliverable(db, dynamicOrderOf(invoice, part, input.quantity, true), options);
    } catch (err) {
      if (err instanceof DynamicDeliveryError)
        throw new UnprocessableError('The dynamic delivery failed.', [`delivery: ${err.message}`]);
      throw err;
    }
  }
  await writeTransaction(ctx, async (tx) => {
    const trx = tx.db;
    await shareShop(trx, shop.id);
    await recordIdempotentWork(trx, invoiceId);
    const now = ctx.clock.now();
    const units = await takeUnits(
      trx,
      shop.id,
      { id: part.variant_id, product_type: part.product_type },
      invoiceId,
      input.quantity,
    );
    if (!units.taken)
      throw new UnprocessableError('Not enough stock for this replacement.', ['quantity: is more than the stock left']);
    const deliverables = await deliverUnits(
      trx,
      shop.id,
      part,
      { invoiceId, quantity: input.quantity, customerId: invoice.customer_id, email: invoice.customer_email },
      now,
      answer,
    );
    await noteIfOutOfStock(trx, shop.id, part.product_id, part.variant_id, units.left, now);
    await repo.insertReplacement(trx, {
      shopId: shop.id,
      invoiceId,
      partId: part.id,
      quantity: input.quantity,
      deliverables,
      now,
    });
    await invoiceReplaced(tx, invoice, { part, quantity: input.quantity, deliverables }, now);
  });
  return getInvoice(ctx, shop, invoiceId);
}

/** Sends the delivery e-mail of a completed invoice again, to `email` when given. */
export async function resendDelivery(ctx: Context, shop: ShopRow, invoiceId: string, email: string | null | undefined) {
  const { db } = ctx;
  const invoice = await requireInvoice(db, shop.id, invoiceId);
  if (invoice.status !== 'completed')
    throw new ConflictError(`The invoice is ${invoice.status}; only completed invoices have a delivery to resend.`, [
      `status: is ${invoice.status}`,
    ]);
  const to = email ?? invoice.customer_email;
  const parts = await repo.listParts(db, shop.id, [invoiceId]);
  await queueDeliveryMail(
    db,
    invoice,
    to,
    parts.map((part) => ({ part, quantity: part.quantity, deliverables: JSON.parse(part.deliverables) as string[] })),
    ctx.config,
    ctx.clock.now(),
  );
  return { invoiceId, to };
}

/**
 * The customer's view of an invoice, found by its unguessable id alone. A completed order's
 * downloads get fresh signed links (`secrets` signs them) each time it is read.
 */
export async function getPublicInvoice(ctx: Context, secrets: SecretBox, invoiceId: string) {
  const { db } = ctx;
  const found = await repo.findInvoiceById(db, invoiceId);
  if (!found) return undefined;
  const invoice = await withExpiryApplied(ctx, found);
  const [parts, replacements, fields, shop, downloads] = await Promise.all([
    repo.listParts(db, invoice.shop_id, [invoice.id]),
    repo.listReplacements(db, invoice.shop_id, [invoice.id]),
    enabledGateway(db, invoice.shop_id, invoice.gateway),
    findShop(db, invoice.shop_id),
    invoice.status === 'completed'
      ? downloadsOfInvoice(db, secrets, invoice.shop_id, invoice.id, ctx.clock.now(), ctx.config.publicUrl)
      : [],
  ]);
  return toPublicInvoice(invoice, parts, replacements, fields, invoiceUrl(ctx.config, shop, invoice.id), downloads);
}

/** The customer's view of an order just placed, from what the checkout has in hand (no read). */
export function placedInvoiceView(order: PlacedOrder, links: LinkSettings) {
  return toPublicInvoice(order.invoice, order.parts, [], order.fields, invoiceUrl(links, order.shop, order.invoice.id));
}

/** A shop as a storefront address names it: its subdomain, or its custom domain. */
export type ShopAddress = { subdomain: string } | { domain: string };

/**
 * The status a buyer's invoice page polls for, in one database read and no write: a pending
 * invoice past its expiry reads as `expired` (the page then reloads, and loading it applies the
 * expiry, see withExpiryApplied). Undefined for an unknown id, or one of another shop than the
 * address names (the shop is found by its address in the same statement).
 */
export async function publicInvoiceStatus(
  ctx: Context,
  invoiceId: string,
  shop: ShopAddress,
): Promise<InvoiceStatus | undefined> {
  const row = await repo.findInvoiceStatus(ctx.db, invoiceId, shopIdAtAddress(ctx.db, shop));
  if (!row) return undefined;
  const now = ctx.clock.now();
  return row.status === 'pending' && row.expires_at <= now ? 'expired' : row.status;
}

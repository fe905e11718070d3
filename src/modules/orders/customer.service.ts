import type { Context } from '../../domain/context.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import type { SecretBox } from '../../security/secret-box.js';
import { downloadsOfInvoice } from '../files/index.js';
import { enabledGateway } from '../settings/index.js';
import type { ShopRow } from '../shops/index.js';
import { expireOverdue } from './lifecycle.service.js';
import { invoiceUrl } from './owner-view.js';
import * as repo from './repository.js';
import { toPublicInvoice } from './views.js';

/**
 * A customer's own invoices of one shop, newest first (id as tie-break), in the customer's view
 * (goods only once completed; never the e-mail, IP or credentials); `cursor` (keyset) wins over
 * `pageNumber`. Overdue pending invoices of the shop are expired first, so statuses are true.
 * Completed orders carry their downloads with fresh links (signed with `secrets`).
 * `customerId` null (an address that never ordered here) is an empty page.
 */
export async function customerInvoices(
  ctx: Context,
  secrets: SecretBox,
  shop: ShopRow,
  customerId: number | null,
  query: { pageNumber: number; pageSize: number; cursor?: string | undefined },
) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  if (customerId === null) return { ...toPage([], 0, query), nextCursor: null };
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'number', 'string');
  await expireOverdue(ctx, { shopId: shop.id });
  const filter = { customerId };
  const [rows, totalCount] = await Promise.all([
    repo.listInvoices(db, shop.id, filter, { limit: limit + 1, offset, after }),
    repo.countInvoices(db, shop.id, filter),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (i) => ({ value: i.created_at, id: i.id }));
  const ids = items.map((i) => i.id);
  const gateways = [...new Set(items.map((i) => i.gateway))];
  const [parts, replacements, fields] = await Promise.all([
    repo.listParts(db, shop.id, ids),
    repo.listReplacements(db, shop.id, ids),
    Promise.all(gateways.map(async (g) => [g, await enabledGateway(db, shop.id, g)] as const)),
  ]);
  const fieldsOf = new Map(fields);
  const now = ctx.clock.now();
  const downloads = await Promise.all(
    items.map((i) =>
      i.status === 'completed' ? downloadsOfInvoice(db, secrets, shop.id, i.id, now, ctx.config.publicUrl) : [],
    ),
  );
  const views = items.map((i, n) =>
    toPublicInvoice(
      i,
      parts.filter((p) => p.invoice_id === i.id),
      replacements.filter((r) => r.invoice_id === i.id),
      fieldsOf.get(i.gateway),
      invoiceUrl(ctx.config, shop, i.id),
      downloads[n],
    ),
  );
  return { ...toPage(views, totalCount, query), nextCursor };
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { storefrontPaths } from '../../http/storefront-url.js';
import { downloadLogOfInvoice } from '../files/index.js';
import { licensesOfInvoice } from '../licenses/index.js';
import { type LinkedShop, type LinkSettings, shopLink } from '../mail/index.js';
import { findShop } from '../shops/index.js';
import { disputeOfInvoice } from './invoice-disputes.js';
import { feedbacksOfInvoices } from './invoice-feedbacks.js';
import type { InvoiceRow } from './invoices.table.js';
import { listRefunds } from './payment.repository.js';
import * as repo from './repository.js';
import { toOwnerInvoice } from './views.js';

/** The absolute link of an invoice's storefront page: what `url` shows in the owner and public views. */
export function invoiceUrl(links: LinkSettings, shop: LinkedShop, invoiceId: string): string {
  return shopLink(links, shop, storefrontPaths.invoice(invoiceId));
}

/**
 * An invoice as the owner API shows it (GET /self/{shopId}/invoices/{invoiceId}), read through
 * `db`: the owner routes, and the `invoice.*` webhook events that snapshot it in the
 * transaction of the change, share this one reading. `shop` (for the link) is read when not given.
 * Unlike the list, it carries the order's downloads and licences.
 */
export async function ownerInvoiceView(
  db: Kysely<Database>,
  invoice: InvoiceRow,
  links: LinkSettings,
  shop?: LinkedShop,
) {
  const [parts, replacements, feedbacks, address, refunds, downloads, licenses, dispute] = await Promise.all([
    repo.listParts(db, invoice.shop_id, [invoice.id]),
    repo.listReplacements(db, invoice.shop_id, [invoice.id]),
    feedbacksOfInvoices(db, invoice.shop_id, [invoice.id]),
    shop ?? findShop(db, invoice.shop_id),
    listRefunds(db, invoice.shop_id, [invoice.id]),
    downloadLogOfInvoice(db, invoice.shop_id, invoice.id),
    licensesOfInvoice(db, invoice.shop_id, invoice.id),
    disputeOfInvoice(db, invoice.shop_id, invoice.id),
  ]);
  return {
    ...toOwnerInvoice(invoice, parts, replacements, feedbacks[0], invoiceUrl(links, address, invoice.id), refunds),
    downloads,
    licenses,
    dispute,
  };
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { PartDelivery } from '../../domain/events.js';
import { storefrontPaths } from '../../http/storefront-url.js';
import { paymentText } from '../../i18n/instructions.js';
import { buyerLang, type Lang } from '../../i18n/lang.js';
import { currencyDigits } from '../../schemas/currencies.js';
import { fromMinorUnits } from '../../schemas/money.js';
import { attachedFiles } from '../files/index.js';
import {
  checkoutMail,
  deliveryMail,
  enqueueMail,
  type LinkSettings,
  type RefundWay,
  refundMail,
  replacementMail,
  shopLink,
} from '../mail/index.js';
import { deliveryNote } from '../products/index.js';
import { enabledGateway } from '../settings/index.js';
import { findShop, type ShopRow } from '../shops/index.js';
import type { InvoicePartRow, InvoiceRow } from './invoices.table.js';
import * as repo from './repository.js';
import { buyerReference, paymentInstructions } from './views.js';

type Conn = Kysely<Database>;

/**
 * The invoice mails (templates in src/modules/mail/templates), written to the outbox in the
 * caller's transaction by the domain events: at checkout, at completion (and the owner's
 * resend), at a replacement, at a refund. Each carries the absolute link to the invoice's storefront page;
 * the text names the order by its payment reference (buyerReference), so a forwarded or quoted mail
 * gives away the id, which opens the invoice, only in that link.
 */

/** `24.98 USD`, `500 JPY`: minor units with the currency's digits (the owner's messages; buyers' mails use `buyerMoney`). */
export function moneyText(minor: number, currency: string): string {
  return `${fromMinorUnits(minor, currency).toFixed(currencyDigits(currency))} ${currency}`;
}

/** An amount in minor units as a buyer reads it, in their language: `$24.98`, `24,98 $`. */
export function buyerMoney(lang: Lang, currency: string): (minor: number) => string {
  return (minor) => lang.money(fromMinorUnits(minor, currency), currency);
}

/** A part as mail names it: the product title, with the variant's when it differs. */
export function partTitle(part: Pick<InvoicePartRow, 'title' | 'variant_title'>): string {
  return part.variant_title === part.title ? part.title : `${part.title} (${part.variant_title})`;
}

/**
 * The goods a mail lists: each part's items and, for a file product, its files by name and size.
 * The mail carries no download link: a link expires within hours, the order page mints fresh ones.
 */
async function goodsOf(db: Conn, shopId: number, deliveries: PartDelivery[]) {
  const fileVariants = deliveries.filter((d) => d.part.product_type === 'file').map((d) => d.part.variant_id);
  const files = fileVariants.length > 0 ? await attachedFiles(db, shopId, fileVariants) : new Map();
  return deliveries.map((d) => ({
    title: partTitle(d.part),
    quantity: d.quantity,
    deliverables: d.deliverables,
    files: (files.get(d.part.variant_id) ?? []).map((f: { name: string; size: number }) => ({
      name: f.name,
      size: f.size,
    })),
  }));
}

/**
 * The seller's note of a delivery: the customer notes of what was delivered (a variant's, else its
 * product's), each once, in the order of the parts.
 */
async function sellerNote(db: Conn, shopId: number, deliveries: PartDelivery[]) {
  const notes: string[] = [];
  for (const { part } of deliveries) {
    const note = await deliveryNote(db, shopId, part);
    if (note && !notes.includes(note)) notes.push(note);
  }
  return notes.length > 0 ? notes.join('\n\n') : null;
}

/** A new pending invoice with what its mail and its view show: the checkout has all of it in hand. */
export interface PlacedOrder {
  invoice: InvoiceRow;
  shop: ShopRow;
  parts: InvoicePartRow[];
  /** The gateway's public fields (its payment instructions); undefined when the shop turned it off. */
  fields: Record<string, string> | undefined;
}

/**
 * The mail of a new pending invoice: payment instructions, expiry, items, total and link. None
 * for the balance gateway: that order completes in the same request (its delivery mail follows)
 * or is cancelled, so instructions to pay would only mislead.
 */
export async function queueCheckoutMail(db: Conn, order: PlacedOrder, links: LinkSettings, now: number) {
  const { invoice, shop, parts, fields } = order;
  if (invoice.gateway === 'balance') return;
  const lang = buyerLang(invoice.locale, shop);
  const money = buyerMoney(lang, invoice.currency);
  await enqueueMail(
    db,
    invoice.shop_id,
    {
      to: invoice.customer_email,
      ...checkoutMail({
        lang,
        shopName: shop.name,
        invoiceId: buyerReference(invoice),
        invoiceUrl: shopLink(links, shop, storefrontPaths.invoice(invoice.id)),
        instructions: paymentText(lang, paymentInstructions(invoice, fields)!),
        items: parts.map((p) => ({ title: partTitle(p), quantity: p.quantity, total: money(p.total) })),
        discount:
          invoice.discount > 0 ? { code: invoice.coupon_code ?? 'coupon', amount: money(invoice.discount) } : null,
        total: money(invoice.total),
        // A card or crypto order: when the provider's page closes.
        expiresAt: invoice.payment_closes_at ?? invoice.expires_at,
      }),
    },
    now,
    // Anyone can place an order to any address: its instructions count in the shop's mail budgets.
    { client: invoice.client_net },
  );
}

/** A pending invoice as the checkout mail needs it, read again (after a hosted payment page was started). */
export async function readPlacedOrder(db: Conn, shopId: number, invoiceId: string): Promise<PlacedOrder> {
  const invoice = await repo.findInvoice(db, shopId, invoiceId);
  if (!invoice) throw new Error(`invoice ${invoiceId} of shop ${shopId} vanished inside its own transaction`);
  const [shop, parts, fields] = await Promise.all([
    findShop(db, shopId),
    repo.listParts(db, shopId, [invoiceId]),
    enabledGateway(db, shopId, invoice.gateway),
  ]);
  return { invoice, shop, parts, fields };
}

/** The delivery mail of a completed invoice (at completion, and again on the owner's resend, to `to`). */
export async function queueDeliveryMail(
  db: Conn,
  invoice: InvoiceRow,
  to: string,
  deliveries: PartDelivery[],
  links: LinkSettings,
  now: number,
) {
  const shop = await findShop(db, invoice.shop_id);
  const lang = buyerLang(invoice.locale, shop);
  await enqueueMail(
    db,
    invoice.shop_id,
    {
      to,
      ...deliveryMail({
        lang,
        shopName: shop.name,
        invoiceId: buyerReference(invoice),
        invoiceUrl: shopLink(links, shop, storefrontPaths.invoice(invoice.id)),
        total: buyerMoney(lang, invoice.currency)(invoice.total),
        parts: await goodsOf(db, invoice.shop_id, deliveries),
        note: await sellerNote(db, invoice.shop_id, deliveries),
      }),
    },
    now,
  );
}

/** The mail of a replacement: it says so, lists only the replacement goods, and shows no total. */
export async function queueReplacementMail(
  db: Conn,
  invoice: InvoiceRow,
  delivery: PartDelivery,
  links: LinkSettings,
  now: number,
) {
  const shop = await findShop(db, invoice.shop_id);
  await enqueueMail(
    db,
    invoice.shop_id,
    {
      to: invoice.customer_email,
      ...replacementMail({
        lang: buyerLang(invoice.locale, shop),
        shopName: shop.name,
        invoiceId: buyerReference(invoice),
        invoiceUrl: shopLink(links, shop, storefrontPaths.invoice(invoice.id)),
        parts: await goodsOf(db, invoice.shop_id, [delivery]),
        note: await sellerNote(db, invoice.shop_id, [delivery]),
      }),
    },
    now,
  );
}

/** How a refund's method brings the money back, in the mail's words. */
const REFUND_WAYS: Record<string, RefundWay> = { provider: 'provider', balance: 'balance', recorded: 'recorded' };

/** The mail of a refund: how much, how it comes back, what was refunded so far (read in the caller's transaction). */
export async function queueRefundMail(
  db: Conn,
  shopId: number,
  invoiceId: string,
  refund: { amount: number; method: string; reason: string | null },
  links: LinkSettings,
  now: number,
) {
  const [invoice, shop] = await Promise.all([repo.findInvoice(db, shopId, invoiceId), findShop(db, shopId)]);
  if (!invoice) throw new Error(`invoice ${invoiceId} of shop ${shopId} vanished inside its own transaction`);
  const lang = buyerLang(invoice.locale, shop);
  const money = buyerMoney(lang, invoice.currency);
  await enqueueMail(
    db,
    shopId,
    {
      to: invoice.customer_email,
      ...refundMail({
        lang,
        shopName: shop.name,
        invoiceId: buyerReference(invoice),
        invoiceUrl: shopLink(links, shop, storefrontPaths.invoice(invoiceId)),
        amount: money(refund.amount),
        refundedSoFar: money(invoice.refunded),
        total: money(invoice.total),
        how: REFUND_WAYS[refund.method] ?? 'recorded',
        reason: refund.reason,
      }),
    },
    now,
  );
}

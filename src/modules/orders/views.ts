import { toIso } from '../../schemas/common.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { Download } from '../files/index.js';
import { gatewayAdapter } from '../gateways/index.js';
import type { InvoiceFeedback } from './invoice-feedbacks.js';
import type { InvoicePartRow, InvoiceRefundRow, InvoiceReplacementRow, InvoiceRow } from './invoices.table.js';
import { formatPaymentCode } from './payment-code.js';

/** Row → wire shapes: the owner's full view and the customer's public one. */
function money(minor: number, currency: string): number {
  return fromMinorUnits(minor, currency);
}

function parts(invoice: InvoiceRow, rows: InvoicePartRow[], withDeliverables: boolean) {
  return rows.map((p) => ({
    id: p.id,
    productId: p.product_id,
    variantId: p.variant_id,
    title: p.title,
    variantTitle: p.variant_title,
    quantity: p.quantity,
    unitPrice: money(p.unit_price, invoice.currency),
    total: money(p.total, invoice.currency),
    deliverables: withDeliverables ? (JSON.parse(p.deliverables) as string[]) : [],
  }));
}

function replacements(rows: InvoiceReplacementRow[]) {
  return rows.map((r) => ({
    partInvoiceId: r.part_id,
    quantity: r.quantity,
    deliverables: JSON.parse(r.deliverables) as string[],
    createdAt: toIso(r.created_at),
  }));
}

export function toOwnerInvoice(
  invoice: InvoiceRow,
  partRows: InvoicePartRow[],
  replacementRows: InvoiceReplacementRow[],
  feedback: InvoiceFeedback | undefined,
  url: string,
  refundRows: InvoiceRefundRow[],
) {
  const c = invoice.currency;
  return {
    id: invoice.id,
    url,
    paymentCode: invoice.payment_code === null ? null : formatPaymentCode(invoice.payment_code),
    status: invoice.status,
    gateway: invoice.gateway,
    customerEmail: invoice.customer_email,
    customerId: invoice.customer_id,
    parts: parts(invoice, partRows, true),
    coupon: invoice.coupon_code,
    subtotal: money(invoice.subtotal, c),
    discount: money(invoice.discount, c),
    total: money(invoice.total, c),
    currency: c,
    customFields: JSON.parse(invoice.custom_fields) as Record<string, string | number | boolean>,
    ip: invoice.ip,
    userAgent: invoice.user_agent,
    country: invoice.country,
    affiliateCode: invoice.affiliate_code,
    chatUserId: invoice.chat_user_id,
    commission: money(invoice.commission, c),
    replacements: replacements(replacementRows),
    feedback: feedback
      ? {
          id: feedback.id,
          rating: feedback.rating,
          comment: feedback.comment,
          answer: feedback.answer,
          createdAt: toIso(feedback.createdAt),
        }
      : null,
    deliveryError: invoice.delivery_error,
    payment: {
      providerId: invoice.payment_ref,
      url: invoice.payment_url,
      closesAt: toIso(invoice.payment_closes_at),
      reference: invoice.payment_reference,
      confirmedBy: invoice.payment_source,
      note: invoice.payment_note,
    },
    refunded: money(invoice.refunded, c),
    refunds: refundRows.map((r) => ({
      id: r.id,
      amount: money(r.amount, c),
      reason: r.reason,
      method: r.method,
      providerRefundId: r.provider_refund_id,
      status: r.status,
      createdAt: toIso(r.created_at),
    })),
    createdAt: toIso(invoice.created_at),
    completedAt: toIso(invoice.completed_at),
    expiresAt: toIso(invoice.expires_at),
  };
}

/** What the buyer's page says of a payment held for the owner's look (payments/payment.service.ts `attention`). */
export const BUYER_NOTE =
  'A payment for this order needs a look from the shop: do not pay again. The shop holds your order and will ' +
  'complete or cancel it.';

/**
 * What the buyer quotes and mails name the order by: its payment reference (`K7Q2-M9XD`), which
 * opens nothing; the invoice id only for orders placed before there were references.
 */
export function buyerReference(invoice: Pick<InvoiceRow, 'id' | 'payment_code'>): string {
  return invoice.payment_code === null ? invoice.id : formatPaymentCode(invoice.payment_code);
}

/** How the customer pays, from the gateway's public settings (never its secrets). */
export function paymentInstructions(invoice: InvoiceRow, fields: Record<string, string> | undefined) {
  if (invoice.status !== 'pending' && invoice.gateway !== 'balance') return null;
  const amount = money(invoice.total, invoice.currency);
  const reference = buyerReference(invoice);
  const text =
    fields === undefined
      ? `The shop has turned ${invoice.gateway} off; contact the shop about ${reference}.`
      : (gatewayAdapter(invoice.gateway)?.instructions({
          amount: `${amount} ${invoice.currency}`,
          reference,
          fields,
        }) ??
        `Pay ${amount} ${invoice.currency} through ${invoice.gateway} quoting ${reference}; the shop confirms the payment.`);
  const publicFields = Object.fromEntries(
    Object.entries(fields ?? {}).filter(([k]) =>
      ['handle', 'email', 'cashtag', 'receiveCurrency', 'terminalId'].includes(k),
    ),
  );
  return {
    gateway: invoice.gateway,
    amount,
    currency: invoice.currency,
    reference,
    instructions: text,
    ...publicFields,
    ...(invoice.payment_url ? { url: invoice.payment_url } : {}),
    ...(invoice.payment_closes_at !== null ? { closesAt: toIso(invoice.payment_closes_at) } : {}),
    // The owner's note is for the owner (it may say "refund it at the provider"); the buyer learns the order is held.
    ...(invoice.payment_note ? { note: BUYER_NOTE } : {}),
  };
}

export function toPublicInvoice(
  invoice: InvoiceRow,
  partRows: InvoicePartRow[],
  replacementRows: InvoiceReplacementRow[],
  gatewayFields: Record<string, string> | undefined,
  url: string,
  downloads: Download[] = [],
) {
  const c = invoice.currency;
  const completed = invoice.status === 'completed';
  return {
    id: invoice.id,
    url,
    shopId: invoice.shop_id,
    status: invoice.status,
    gateway: invoice.gateway,
    parts: parts(invoice, partRows, completed),
    replacements: completed ? replacements(replacementRows) : [],
    coupon: invoice.coupon_code,
    subtotal: money(invoice.subtotal, c),
    discount: money(invoice.discount, c),
    total: money(invoice.total, c),
    currency: c,
    payment: paymentInstructions(invoice, gatewayFields),
    refunded: money(invoice.refunded, c),
    downloads: completed ? downloads : [],
    createdAt: toIso(invoice.created_at),
    completedAt: toIso(invoice.completed_at),
    expiresAt: toIso(invoice.expires_at),
  };
}

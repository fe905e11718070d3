// The orders module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { cancelInvoice, cancelPublicInvoice } from './cancel.service.js';
export {
  type Buyer,
  checkout,
  type OrderQuote,
  openShop,
  quoteOrder,
  type ShopAccess,
} from './checkout.service.js';
export { customerInvoices } from './customer.service.js';
export { backdateOrder, customerOrderDates, deriveRepeatPurchases } from './history.service.js';
export { type InvoiceDisputesPort, invoiceDisputesWith } from './invoice-disputes.js';
export {
  type InvoiceFeedback,
  type InvoiceFeedbacksReader,
  readInvoiceFeedbacksWith,
} from './invoice-feedbacks.js';
export { moneyText } from './invoice-mail.js';
export type { InvoiceRefundRow, InvoiceRow } from './invoices.table.js';
export {
  completeInvoice,
  DeliveryFailedError,
  endUnpaid,
  expireOverdue,
  requireInvoice,
  withExpiryApplied,
} from './lifecycle.service.js';
export {
  invoiceExists,
  invoiceOfLink,
  invoiceOfPayment,
  invoiceOfProviderReference,
  type LinkedInvoice,
  orderedLines,
  type PaidInvoice,
  productIdsOfInvoices,
  termsOfInvoice,
} from './lookup.service.js';
export { type CheckoutOutcome, type OrderOptions, orderOptions, type PaymentPort } from './order-options.js';
export { invoiceOwnerRoutes } from './owner.routes.js';
export { getInvoice, getPublicInvoice, publicInvoiceStatus } from './owner.service.js';
export { invoiceUrl } from './owner-view.js';
export {
  attachHostedPayment,
  dropRefund,
  finishRefund,
  forgetLapsedPage,
  holdRefund,
  lapsedPages,
  notePayment,
  pendingRefund,
  refundRecorded,
} from './payment-records.js';
export { reminderDueAt, sendDueReminders } from './payment-reminders.js';
export { buyerOf, invoicePublicRoutes } from './public.routes.js';
export { CheckoutBody, InvoiceId, InvoiceParams, OwnerInvoice, PublicInvoice } from './schema.js';
export { subscribe as subscribeInvoiceMails } from './subscribers.js';

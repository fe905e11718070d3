// The invoices module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { cancelInvoice, cancelPublicInvoice } from './cancel.service.js';
export { type Buyer, checkout, openShop, type ShopAccess } from './checkout.service.js';
export { customerInvoices } from './customer.service.js';
export { expireOverdue, withExpiryApplied } from './lifecycle.service.js';
export { type CheckoutOutcome, type OrderOptions, orderOptions } from './order-options.js';
export { invoiceOwnerRoutes } from './owner.routes.js';
export { getPublicInvoice, publicInvoiceStatus } from './owner.service.js';
export { sweepPaymentEvents } from './payment.repository.js';
export { paymentCallbackRoutes } from './payment.routes.js';
export { buyerOf, invoicePublicRoutes } from './public.routes.js';
export { findInvoice, findInvoiceById, listParts } from './repository.js';
export { CheckoutBody, InvoiceId, PublicInvoice } from './schema.js';
export { subscribe as subscribeInvoiceMails } from './subscribers.js';

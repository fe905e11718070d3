// The invoices module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { openShop } from './checkout.service.js';
export { feedbackCreated, feedbackWithdrawn, writeTransaction } from './domain-events.js';
export { expireOverdue, startExpiryWorker, withExpiryApplied } from './lifecycle.service.js';
export { invoiceOwnerRoutes } from './owner.routes.js';
export { invoicePublicRoutes } from './public.routes.js';
export { findInvoice, findInvoiceById, listParts } from './repository.js';
export { InvoiceId } from './schema.js';

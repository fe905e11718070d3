// The disputes module's door: payment disputes (chargebacks) recorded from the provider's events,
// their evidence and its submission, and the invoice views kept as evidence.
export { disputeOwnerRoutes } from './owner.routes.js';
export {
  type DisputeApplied,
  type DisputeContext,
  disputesOfInvoices,
  recordDispute,
  recordInvoiceView,
} from './service.js';

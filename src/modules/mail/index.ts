// The mail module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.

export { type LinkedShop, type LinkSettings, shopLink } from './links.js';
export { mailOwnerRoutes } from './owner.routes.js';
export type { OutgoingMail } from './service.js';
export { enqueueMail, mailBacklog } from './service.js';
export { type CheckoutMailInput, checkoutMail } from './templates/checkout-mail.js';
export { type DeliveryMailInput, deliveryMail } from './templates/delivery-mail.js';
export type { DeliveredPart } from './templates/goods.js';
export { type RefundMailInput, type RefundWay, refundMail } from './templates/refund-mail.js';
export { type ReminderMailInput, reminderMail } from './templates/reminder-mail.js';
export type { RenderedMail } from './templates/render.js';
export { type ReplacementMailInput, replacementMail } from './templates/replacement-mail.js';
export { type SignInCodeMailInput, signInCodeMail } from './templates/sign-in-code-mail.js';
export {
  type TicketAnsweredMailInput,
  type TicketOpenedMailInput,
  ticketAnsweredMail,
  ticketOpenedMail,
} from './templates/ticket-mail.js';
export type { MailWorker, MailWorkerOptions } from './worker.js';
export { mailOutboxJob, startMailWorker } from './worker.js';

// The payments module's door: the payments of orders. The use-cases (payment.service.ts: start,
// callbacks; refund.service.ts) ask the providers through the gateways module's adapters and apply
// what they say through the orders module's door; orders reach them only through the PaymentPort
// that src/app.ts gives them (`paymentPort`).
export { type PaymentContext, paymentPort } from './payment.service.js';
export { sweepPaymentEvents } from './payment-events.js';
export { paymentCallbackRoutes, paymentContext, paymentOwnerRoutes } from './routes.js';

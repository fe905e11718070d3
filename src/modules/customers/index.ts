// The customers module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { customerOwnerRoutes } from './owner.routes.js';
export { Customer, CustomerParams, StatsQuery } from './schema.js';
export {
  backdateCustomers,
  buyerBalance,
  changeBalance,
  countBuyers,
  customerForEmail,
  disableReferrals,
  earnsCommission,
  InsufficientBalanceError,
  lockCustomers,
  recordCustomerIp,
  recordPurchase,
  referrerOfCode,
  requireCustomer,
  rescaleCustomerMoney,
  toCustomer,
} from './service.js';
export { subscribe as subscribeCustomers } from './subscribers.js';

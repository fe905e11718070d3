// The customers module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { customerOwnerRoutes } from './owner.routes.js';
export {
  findCustomer,
  findCustomerByEmail,
  findCustomerByReferralCode,
  lockCustomers,
  recordCustomerIp,
  recordPurchase,
  rescaleMoney,
  setReferralDisabled,
} from './repository.js';
export { Customer, CustomerParams, StatsQuery } from './schema.js';
export { changeBalance, customerForEmail, InsufficientBalanceError, requireCustomer, toCustomer } from './service.js';
export { subscribe as subscribeCustomers } from './subscribers.js';

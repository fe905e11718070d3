// The settings module's door. The settings routes (/self/{shopId}/settings/...), the payment
// gateways' settings, and the changes that reach into other modules (currency: prices, coupons,
// balances; timezone: rollups). It sits above shops, products, coupons, customers, design and
// rollups, and below orders and the storefront, which ask it which gateways are enabled.
export { settingsOwnerRoutes } from './owner.routes.js';
export {
  checkoutGateway,
  enabledGateway,
  enabledGatewayNames,
  gatewayCredentials,
  resealPaymentSecrets,
  sealedPaymentSecrets,
  warnOfUnenforcedVpnRules,
} from './payment-settings.js';

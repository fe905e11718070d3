// The shops module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.

export { DOMAIN_PATTERN, DOMAIN_RULES } from './custom-domains.js';
export { VERIFY_LABEL, verifyCustomDomain } from './domain-verification.js';
export { loadOwnedShop } from './owned-shop.js';
export { shopOwnerRoutes } from './owner.routes.js';
export type { HostedProvider, PaymentProvider, SupportedProvider } from './payments.js';
export {
  hostedProviders,
  isHostedProvider,
  isUnsupportedProvider,
  paymentProviderNames,
  providerFields,
  unsupportedProviders,
} from './payments.js';
export { PublicShopId, PublicShopParams, resolvePublicShopId } from './public-shop.js';
export { Shop, ShopName } from './schema.js';
export {
  affiliateCommission,
  allShopIds,
  changeSubdomain,
  findShop,
  holdShopKeys,
  type LinkSettings,
  lockShop,
  recordClock,
  recordCurrency,
  renameShop,
  requireShop,
  setAffiliatePercentage,
  setCustomDomain,
  setInvoiceLifetime,
  setLanguage,
  setOnHold,
  setPassword,
  setPopup,
  setTerms,
  shareShop,
  shopAtAddress,
  shopClockColumns,
  shopCurrency,
  shopDirectory,
  shopIdAtAddress,
  shopPasswordHash,
  toShop,
} from './service.js';
export type { ShopRow } from './shops.table.js';
export { reservedSubdomains, SUBDOMAIN, SUBDOMAIN_PATTERN } from './subdomains.js';
export { type ServedHost, servedHost, tlsAskRoutes } from './tls-ask.routes.js';

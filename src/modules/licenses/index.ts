// The licenses module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export { licenseCustomerRoutes } from './customer.routes.js';
export {
  DEFAULT_KEY_PATTERN,
  generateLicenseKeys,
  MAX_KEY_PATTERN_LENGTH,
  MIN_KEY_PATTERN_XS,
  validateKeyPattern,
} from './keys.js';
export type { LicenseRow, LicenseState } from './licenses.table.js';
export { licenseOwnerRoutes } from './owner.routes.js';
export { licensePublicRoutes } from './public.routes.js';
export {
  backdateLicenses,
  customerLicenses,
  freeCustomerInstance,
  type IssueLicensesInput,
  issueLicenses,
  licenseActivationsOfInvoice,
  licensesOfInvoice,
} from './service.js';
export { licenseIssuer, resealSigningKey, sealedSigningKeys } from './signing.js';
export { type LicenseStatus, licenseStatus, licenseStatuses } from './status.js';
export { subscribe as subscribeLicenses } from './subscribers.js';

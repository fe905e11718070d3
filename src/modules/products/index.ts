// The products module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.

export { findOrderedItems, reachableProducts } from './buyable.js';
export { type DeliveryOptions, DynamicDeliveryError, type DynamicOrder } from './dynamic-delivery.js';
export {
  fieldPatternProblem,
  MAX_ANSWER_LENGTH,
  MAX_MATCH_WORK,
  matchesFieldPattern,
  matchWork,
} from './field-pattern.js';
export {
  backdateDeliveries,
  deliverUnits,
  deliveryNote,
  dynamicDeliverable,
  type TakenUnits,
  takeUnits,
} from './fulfilment.js';
export { productOwnerRoutes } from './owner.routes.js';
export type { ProductImageRow, ProductRow, VariantRow } from './products.table.js';
export type { VariantStockRow } from './repository.js';
export { customFieldTypes, Gateway, productTypes } from './schema.js';
export {
  checkProductIds,
  countVpnBlockingVariants,
  galleriesByProduct,
  liveVariantsByProduct,
  recountAvailableSerials,
  rescalePrices,
  variantStocksByProduct,
} from './service.js';
export { subscribe as subscribeProducts } from './subscribers.js';
export type { StoredCustomField, StoredGateway } from './variant-input.js';
export { totalStock, variantStock } from './views.js';

import type { Config } from '../../config.js';
import type { LinkSettings } from '../mail/index.js';
import type { DeliveryOptions } from './dynamic-delivery.js';

/**
 * What the writes of an order take from the server's configuration: how dynamic items are fetched
 * (DeliveryOptions), and where the links in the order's mail point.
 */
export interface OrderOptions extends DeliveryOptions {
  links: LinkSettings;
}

export function orderOptions(config: Config): OrderOptions {
  return {
    timeoutMs: config.invoices.dynamicTimeoutMs,
    allowPrivate: config.webhooks.allowPrivate,
    links: { publicUrl: config.publicUrl, storefrontDomain: config.storefrontDomain },
  };
}

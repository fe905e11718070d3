import type { Config } from '../../config.js';
import type { SecretBox } from '../../security/secret-box.js';
import type { LinkSettings } from '../mail/index.js';
import type { ProviderEndpoints } from '../payments/index.js';
import type { CheckoutOutcome } from './checkout.service.js';
import type { DeliveryOptions } from './dynamic-delivery.js';

/** What the payment code needs: the key that opens the gateways' secrets, the providers' APIs, a log for what fails quietly. */
export interface PaymentContext {
  secrets: SecretBox;
  endpoints: ProviderEndpoints;
  log: { warn(obj: object, msg: string): void };
}

/**
 * What the writes of an order take from the server: how dynamic items are fetched
 * (DeliveryOptions), where the links in the order's mail point, and how payments are taken.
 */
export interface OrderOptions extends DeliveryOptions {
  links: LinkSettings;
  payments: PaymentContext;
  /** Told how each checkout ended (the operator's metrics, when they are on). */
  observeCheckout?: (outcome: CheckoutOutcome) => void;
}

export function orderOptions(app: {
  config: Config;
  secrets: SecretBox;
  log: PaymentContext['log'];
  metrics: { countCheckout(outcome: CheckoutOutcome): void } | null;
}): OrderOptions {
  const { config, metrics } = app;
  return {
    ...(metrics ? { observeCheckout: (outcome: CheckoutOutcome) => metrics.countCheckout(outcome) } : {}),
    timeoutMs: config.invoices.dynamicTimeoutMs,
    allowPrivate: config.webhooks.allowPrivate,
    links: { publicUrl: config.publicUrl, storefrontDomain: config.storefrontDomain },
    payments: { secrets: app.secrets, endpoints: config.payments, log: app.log },
  };
}

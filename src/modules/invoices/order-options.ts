import type { Config } from '../../config.js';
import type { SecretBox } from '../../security/secret-box.js';
import type { ProviderEndpoints } from '../payments/index.js';
import type { DeliveryOptions } from '../products/index.js';

/**
 * How a checkout that reached the order rules ended, as the operator's metrics count it: placed,
 * refused for want of stock, refused by the shop's blacklist or VPN rules, refused otherwise (any
 * other 4xx: a bad coupon, a closed gateway, a shop on hold), or failed (the server or a payment
 * provider). A body the schema refuses (400) never gets that far.
 */
export type CheckoutOutcome = 'placed' | 'out_of_stock' | 'blocked' | 'refused' | 'failed';

/** What the payment code needs: the key that opens the gateways' secrets, the providers' APIs, a log for what fails quietly. */
export interface PaymentContext {
  secrets: SecretBox;
  endpoints: ProviderEndpoints;
  log: { warn(obj: object, msg: string): void };
}

/**
 * What the writes of an order take from the server: how dynamic items are fetched
 * (DeliveryOptions) and how payments are taken. Links are built from the context's config.
 */
export interface OrderOptions extends DeliveryOptions {
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
    payments: { secrets: app.secrets, endpoints: config.payments, log: app.log },
  };
}

import type { Config } from '../../config.js';
import type { Context } from '../../domain/context.js';
import type { PasswordGuessLimits } from '../../http/auth-failures.js';
import type { DeliveryOptions } from '../products/index.js';
import type { InvoiceRow } from './invoices.table.js';

/**
 * How a checkout that reached the order rules ended, as the operator's metrics count it: placed,
 * refused for want of stock, refused by the shop's blacklist or VPN rules, refused otherwise (any
 * other 4xx: a bad coupon, a closed gateway, a shop on hold), or failed (the server or a payment
 * provider). A body the schema refuses (400) never gets that far.
 */
export type CheckoutOutcome = 'placed' | 'out_of_stock' | 'blocked' | 'refused' | 'failed';

/**
 * What orders ask of the payments module, which implements it (src/modules/payments
 * `paymentPort`) and is given to orders by the composition root (src/app.ts): orders never import
 * payments, which applies what providers say through this module's door.
 */
export interface PaymentPort {
  /**
   * Starts the provider's payment of a new invoice of a hosted gateway (checkout, once the invoice
   * is written; nothing for any other gateway). When the provider cannot be asked the invoice is
   * cancelled and this throws a 502: no order is left that could never be paid.
   */
  startHostedPayment(ctx: Context, shopId: number, invoiceId: string): Promise<void>;
  /** After a pending invoice was cancelled: closes its provider's payment page (best effort, never throws for the provider). */
  closeHostedPayment(ctx: Context, invoice: InvoiceRow): Promise<void>;
  /**
   * Closes the provider pages that outlive their expired orders (a page stays open longer than a
   * shop's hold: Stripe's 30-minute minimum), so that nobody pays an order that no longer holds
   * its stock; the invoice-expiry job calls it after each pass. Answers how many it closed.
   */
  closeLapsedPages(ctx: Context): Promise<number>;
}

/**
 * What the writes of an order take from the server: how dynamic items are fetched
 * (DeliveryOptions) and how payments are taken. Links are built from the context's config.
 */
export interface OrderOptions extends DeliveryOptions {
  payments: PaymentPort;
  /** Storefront password guesses per shop and client: the public API's `key` is a guess (src/http/auth-failures.ts). */
  passwordGuesses: PasswordGuessLimits;
  /** Told how each checkout ended (the operator's metrics, when they are on). */
  observeCheckout?: (outcome: CheckoutOutcome) => void;
}

/** The options of every order write of a server: built once, in src/app.ts (`app.orders`). */
export function orderOptions(
  app: {
    config: Config;
    metrics: { countCheckout(outcome: CheckoutOutcome): void } | null;
    passwordGuesses: PasswordGuessLimits;
  },
  payments: PaymentPort,
): OrderOptions {
  const { config, metrics, passwordGuesses } = app;
  return {
    ...(metrics ? { observeCheckout: (outcome: CheckoutOutcome) => metrics.countCheckout(outcome) } : {}),
    timeoutMs: config.invoices.dynamicTimeoutMs,
    allowPrivate: config.webhooks.allowPrivate,
    payments,
    passwordGuesses,
  };
}

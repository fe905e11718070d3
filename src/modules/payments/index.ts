// The payments module's door: the payment providers' adapters (adapter.ts). It knows no invoice
// and no database: the invoices module starts payments, applies callbacks and refunds with it.
import type { HostedProvider } from '../shops/index.js';
import type { GatewayAdapter } from './adapter.js';
import { cryptoAdapter } from './crypto.adapter.js';
import { stripeAdapter } from './stripe.adapter.js';

export {
  type CallbackOutcome,
  type Credentials,
  decimalOf,
  type GatewayAdapter,
  minorOf,
  type PaymentOrder,
  ProviderCallError,
  type ProviderEndpoints,
  SignatureError,
  type StartedPayment,
} from './adapter.js';

/** The adapter of each provider that takes money on its own page. */
export const adapters: Record<HostedProvider, GatewayAdapter> = {
  cardconnect: stripeAdapter,
  cryptocommerce: cryptoAdapter,
};

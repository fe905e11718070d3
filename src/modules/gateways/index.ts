// The gateways module's door: one adapter per payment gateway (adapter.ts), which knows its
// provider's API and no invoice, no database. The payments module starts payments, applies
// callbacks and refunds with them; the orders module shows a manual method's instructions.
export {
  type CallbackOutcome,
  type Credentials,
  type DisputeFacts,
  decimalOf,
  EventShapeError,
  type GatewayAdapter,
  type HostedGateway,
  minorOf,
  type PaymentOrder,
  ProviderCallError,
  type ProviderEndpoints,
  SignatureError,
  type StartedPayment,
} from './adapter.js';
export { gatewayAdapter, gateways, hostedGateways } from './gateways.js';

import type { HostedProvider, SupportedProvider } from '../shops/index.js';
import type { GatewayAdapter, HostedGateway } from './adapter.js';
import { cryptoAdapter } from './crypto.adapter.js';
import {
  balanceAdapter,
  mobileCashAdapter,
  tipjarAdapter,
  walletEmailAdapter,
  walletFfAdapter,
} from './manual.adapter.js';
import { stripeAdapter } from './stripe.adapter.js';

/**
 * The adapter of every gateway a shop can enable. A provider without one (shops/payments.ts
 * `unsupportedProviders`) cannot be enabled: the Record makes a supported provider without an
 * adapter a type error.
 */
export const gateways: Record<SupportedProvider, GatewayAdapter> = {
  cardconnect: stripeAdapter,
  cryptocommerce: cryptoAdapter,
  tipjar: tipjarAdapter,
  walletemail: walletEmailAdapter,
  mobilecash: mobileCashAdapter,
  'wallet-ff': walletFfAdapter,
  balance: balanceAdapter,
};

/** The adapter of a gateway by its name, if it has one. */
export function gatewayAdapter(gateway: string): GatewayAdapter | undefined {
  return Object.hasOwn(gateways, gateway) ? gateways[gateway as SupportedProvider] : undefined;
}

/** The providers that take the money on their own page. */
export const hostedGateways: Record<HostedProvider, HostedGateway> = {
  cardconnect: stripeAdapter.hosted!,
  cryptocommerce: cryptoAdapter.hosted!,
};

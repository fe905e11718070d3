import { type TSchema, Type } from '@sinclair/typebox';
import { Email } from '../../schemas/common.js';

/**
 * The payment providers of contract section 3. Each provider's word is also its gateway name
 * everywhere else (checkout, coupons, variant gateways, invoice filters). `secret` fields are
 * sealed at rest and masked on every read; `required` fields must be set before the provider
 * can be enabled.
 */
interface FieldSpec {
  schema: TSchema;
  secret: boolean;
  required: boolean;
}

const secretText = (max: number): FieldSpec => ({
  schema: Type.String({ minLength: 1, maxLength: max }),
  secret: true,
  required: true,
});
const email = (required: boolean): FieldSpec => ({ schema: Email(), secret: false, required });

export const paymentProviders = {
  cryptocommerce: { apiKey: secretText(512), webhookSecret: secretText(512) },
  'virtual-payments': {
    privateKey: secretText(4096),
    publicKey: { schema: Type.String({ minLength: 1, maxLength: 4096 }), secret: false, required: true },
    receiveCurrency: {
      schema: Type.String({ pattern: '^[A-Z0-9]{2,10}$', description: 'Ticker, e.g. BTC or USDT.' }),
      secret: false,
      required: true,
    },
  },
  tipjar: { handle: { schema: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), secret: false, required: true } },
  balance: {},
  cardconnect: { secretKey: secretText(512), webhookSecret: secretText(512) },
  walletemail: { email: email(true) },
  mobilecash: {
    cashtag: { schema: Type.String({ pattern: '^\\$?[A-Za-z][A-Za-z0-9_-]{0,19}$' }), secret: false, required: true },
    email: email(false),
  },
  'wallet-ff': { email: email(true) },
  cardreader: {
    terminalId: { schema: Type.String({ minLength: 1, maxLength: 128 }), secret: false, required: true },
    apiKey: secretText(512),
  },
} satisfies Record<string, Record<string, FieldSpec>>;

export type PaymentProvider = keyof typeof paymentProviders;
export const paymentProviderNames = Object.keys(paymentProviders) as PaymentProvider[];

export function providerFields(provider: PaymentProvider): [string, FieldSpec][] {
  return Object.entries(paymentProviders[provider] as Record<string, FieldSpec>);
}

/**
 * Providers this server has no adapter for yet: their settings can be stored, but enabling them is
 * refused (422), so that no enabled gateway is a label that takes no money.
 */
export const unsupportedProviders = ['virtual-payments', 'cardreader'] as const satisfies readonly PaymentProvider[];
/** The providers a shop can enable: each has its adapter (payments/index.ts `gateways`). */
export type SupportedProvider = Exclude<PaymentProvider, (typeof unsupportedProviders)[number]>;
export const isUnsupportedProvider = (provider: string): boolean =>
  (unsupportedProviders as readonly string[]).includes(provider);

/** Providers whose buyers pay on the provider's own page, which calls back when the money arrives. */
export const hostedProviders = ['cardconnect', 'cryptocommerce'] as const;
export type HostedProvider = (typeof hostedProviders)[number] & SupportedProvider;
export const isHostedProvider = (gateway: string): gateway is HostedProvider =>
  (hostedProviders as readonly string[]).includes(gateway);

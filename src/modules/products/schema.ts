import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../http/slug.js';
import { CursorPageQuery, Id, Nullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { Amount, PriceDetails } from '../../schemas/money.js';
import { paymentProviderNames } from '../shops/payments.js';

export const productTypes = ['serials', 'service', 'dynamic'] as const;
export const customFieldTypes = ['text', 'number', 'email', 'checkbox', 'textarea'] as const;
export const productOrders = ['createdAt', '-createdAt', 'title', '-title', 'price', '-price'] as const;

export const Gateway = StringEnum(paymentProviderNames, { description: 'A payment provider word of the shop settings.' });
const HttpsUrl = Type.String({ format: 'uri', pattern: '^https://', maxLength: 2048 });
const DeliveryUrl = Type.String({
  format: 'uri',
  pattern: '^https://',
  maxLength: 2048,
  description:
    'Called with a POST of the order at delivery; its answer (up to 64 KiB, trimmed) is delivered. Must resolve to public addresses only, ' +
    'unless the server allows private ones: a loopback, private or link-local address is a 400 when saved (a name that does not resolve ' +
    'yet is accepted) and is refused again at every delivery, which connects only to a checked address. No redirects are followed; ' +
    'a timeout, a non-2xx answer, an empty answer or one over 64 KiB is a delivery failure recorded on the invoice.',
});
const Stock = Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'null = unlimited.' }));

const amountLimits = {
  minAmount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Smallest quantity per order.' })),
  maxAmount: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Largest quantity per order; null = no limit.' }))),
};

export const CustomField = Type.Object({
  id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Generated from the name when omitted.' })),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: StringEnum(customFieldTypes),
  required: Type.Optional(Type.Boolean({ default: false })),
  placeholder: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  regex: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'JavaScript regular expression the answer must match; must compile.' }))),
});
export type CustomFieldInput = Static<typeof CustomField>;

export const ChatIntegration = Type.Object({
  enabled: Type.Boolean(),
  required: Type.Optional(Type.Boolean({ default: false })),
  guildId: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{1,32}$' }))),
  roleIds: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9]{1,32}$' }), { maxItems: 50 })),
});

const Warranty = Type.Object({
  text: Type.String({ maxLength: 5000 }),
  durationSeconds: Type.Integer({ minimum: 0, maximum: 10 * 365 * 24 * 3600 }),
});

const VariantInput = Type.Object({
  id: Type.Optional(Id),
  title: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  priceDetails: PriceDetails,
  gateways: Type.Optional(
    Type.Array(
      Type.Object({
        gateway: Gateway,
        rules: Type.Optional(Type.Object({ blockVpn: Type.Optional(Type.Boolean()) })),
        price: Type.Optional(Nullable(Amount)),
      }),
      { maxItems: paymentProviderNames.length, description: 'Empty or omitted: every enabled gateway, at the variant price.' },
    ),
  ),
  productType: StringEnum(productTypes),
  asSerials: Type.Optional(
    Type.Object({
      serials: Type.Optional(
        Type.Union([Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100_000 }), Type.String()], {
          description: 'The undelivered stock: an array, or one text split on `delimiter`. On update, omitted keeps the current stock.',
        }),
      ),
      delimiter: Type.Optional(Type.String({ minLength: 1, maxLength: 10, default: '\n' })),
      removeDuplicates: Type.Optional(Type.Boolean({ default: false })),
      ...amountLimits,
    }),
  ),
  asService: Type.Optional(Type.Object({ stock: Type.Optional(Stock), text: Type.String({ minLength: 1, maxLength: 20_000 }), ...amountLimits })),
  asDynamic: Type.Optional(Type.Object({ stock: Type.Optional(Stock), externalUrl: DeliveryUrl, ...amountLimits })),
  customerNote: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  redirectUrl: Type.Optional(Nullable(HttpsUrl)),
  customFields: Type.Optional(Type.Array(CustomField, { maxItems: 25 })),
  warranty: Type.Optional(Nullable(Warranty)),
});
export type VariantInput = Static<typeof VariantInput>;

export const ProductInput = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 50_000 }),
  shortDescription: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  path: Type.Optional(Type.String({ pattern: SLUG_PATTERN, maxLength: 100, description: 'Unique per shop (409); generated from the title when omitted.' })),
  seo: Type.Optional(
    Type.Object({
      metaTitle: Type.Optional(Nullable(Type.String({ maxLength: 70 }))),
      metaDescription: Type.Optional(Nullable(Type.String({ maxLength: 160 }))),
    }),
  ),
  unlisted: Type.Optional(Type.Boolean({ default: false })),
  private: Type.Optional(Type.Boolean({ default: false })),
  onHold: Type.Optional(Type.Boolean({ default: false })),
  isInternal: Type.Optional(Type.Boolean({ default: false })),
  customerNote: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  chatIntegration: Type.Optional(Nullable(ChatIntegration)),
  variants: Type.Array(VariantInput, { minItems: 1, maxItems: 50 }),
});
export type ProductInput = Static<typeof ProductInput>;

const limitsOut = { minAmount: Type.Integer(), maxAmount: Nullable(Type.Integer()) };

function variantSchema(withSerials: boolean): TSchema {
  return Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    description: Nullable(Type.String()),
    priceDetails: Type.Object({ amount: Type.Number(), currency: Type.String() }),
    gateways: Type.Array(Type.Object({ gateway: Type.String(), rules: Type.Object({ blockVpn: Type.Boolean() }), price: Nullable(Type.Number()) })),
    productType: StringEnum(productTypes),
    stock: Nullable(Type.Integer({ description: 'Units available now; null = unlimited.' })),
    asSerials: Nullable(
      Type.Object({
        ...(withSerials ? { serials: Type.Array(Type.String(), { description: 'Undelivered serials (owner only).' }) } : {}),
        delimiter: Type.String(),
        removeDuplicates: Type.Boolean(),
        ...limitsOut,
      }),
    ),
    asService: Nullable(Type.Object({ stock: Nullable(Type.Integer()), text: Type.String(), ...limitsOut })),
    asDynamic: Nullable(Type.Object({ stock: Nullable(Type.Integer()), externalUrl: Type.String(), ...limitsOut })),
    customerNote: Nullable(Type.String()),
    redirectUrl: Nullable(Type.String()),
    customFields: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        type: Type.String(),
        required: Type.Boolean(),
        placeholder: Nullable(Type.String()),
        regex: Nullable(Type.String()),
      }),
    ),
    warranty: Nullable(Type.Object({ text: Type.String(), durationSeconds: Type.Integer() })),
  });
}

function productSchema(withSerials: boolean) {
  return Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    shortDescription: Nullable(Type.String()),
    description: Type.String(),
    path: Type.String(),
    seo: Type.Object({ metaTitle: Nullable(Type.String()), metaDescription: Nullable(Type.String()), imageUrl: Nullable(Type.String()) }),
    thumbnailUrl: Nullable(Type.String()),
    unlisted: Type.Boolean(),
    private: Type.Boolean(),
    onHold: Type.Boolean(),
    isInternal: Type.Boolean(),
    customerNote: Nullable(Type.String()),
    chatIntegration: Nullable(
      Type.Object({ enabled: Type.Boolean(), required: Type.Boolean(), guildId: Nullable(Type.String()), roleIds: Type.Array(Type.String()) }),
    ),
    variants: Type.Array(variantSchema(withSerials)),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  });
}

/** One product as its owner sees it, serial contents included. */
export const Product = productSchema(true);
/** A product in a list: the same without serial contents (never listed in bulk). */
export const ProductListItem = productSchema(false);

export const ProductListQuery = Type.Composite([
  CursorPageQuery,
  Type.Object({ orderBy: Type.Optional(StringEnum(productOrders, { default: '-createdAt', description: '"-" sorts descending; price is the lowest variant price.' })) }),
]);
export type ProductListQuery = Static<typeof ProductListQuery>;

export const ProductParams = Type.Object({ shopId: Id, productId: Id });

/** `GET /self/{shopId}/products` summary row. */
export const ProductSummary = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  path: Type.String(),
  unlisted: Type.Boolean(),
  private: Type.Boolean(),
  onHold: Type.Boolean(),
  isInternal: Type.Boolean(),
  minPrice: Type.Object({ amount: Type.Number(), currency: Type.String() }),
  totalStock: Nullable(Type.Integer({ description: 'null when a variant has unlimited stock.' })),
  soldCount: Type.Integer(),
  thumbnailUrl: Nullable(Type.String()),
  createdAt: Timestamp,
});

const ProductIds = Type.Array(Id, { minItems: 1, maxItems: 500, description: '1–500 product ids of this shop; any other id makes the whole call a 404.' });

export const BulkBodies = {
  customFields: Type.Object({ productIds: ProductIds, customFields: Type.Array(CustomField, { maxItems: 25 }) }),
  customerNote: Type.Object({ productIds: ProductIds, note: Nullable(Type.String({ maxLength: 5000 })) }),
  visibility: Type.Object({
    productIds: ProductIds,
    unlisted: Type.Optional(Type.Boolean()),
    private: Type.Optional(Type.Boolean()),
    onHold: Type.Optional(Type.Boolean()),
  }),
  chatIntegration: Type.Object({ productIds: ProductIds, chatIntegration: ChatIntegration }),
  delete: Type.Object({ productIds: ProductIds }),
  paymentMethods: Type.Object({
    productIds: ProductIds,
    gatewaysList: Type.Record(Type.String(), Type.Boolean(), {
      description: 'Gateway → true to allow it on every variant, false to remove it. Unknown gateways are a 400.',
    }),
  }),
};
export const BulkResult = Type.Object({ updated: Type.Integer() });

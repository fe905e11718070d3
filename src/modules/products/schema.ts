import { type Static, type TBoolean, type TOptional, type TSchema, Type } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../http/slug.js';
import {
  CursorPageQuery,
  HttpsUrl,
  Id,
  Nullable,
  NullableTimestamp,
  OptionalNullable,
  StringEnum,
  Timestamp,
} from '../../schemas/common.js';
import { Amount, PriceDetails } from '../../schemas/money.js';
import { atLeast, references, rule, uniqueBy } from '../../schemas/rules.js';
import { BLOCK_VPN_DESCRIPTION } from '../blacklist/index.js';
import { FileId } from '../files/index.js';
import { paymentProviderNames } from '../shops/index.js';
import { MAX_PATTERN_LENGTH, MAX_PATTERN_PROGRAM } from './field-pattern.js';

export const productTypes = ['serials', 'service', 'dynamic', 'file'] as const;
export const customFieldTypes = ['text', 'number', 'email', 'checkbox', 'textarea'] as const;
export const productOrders = ['createdAt', '-createdAt', 'title', '-title', 'price', '-price'] as const;

export const Gateway = StringEnum(paymentProviderNames, {
  description: 'A payment provider word of the shop settings.',
});
const Stock = Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'null = unlimited.' }));

const amountLimits = {
  minAmount: OptionalNullable(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 1,
      description: 'Smallest quantity per order; null or omitted: 1.',
    }),
  ),
  maxAmount: OptionalNullable(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'Largest quantity per order, not below minAmount (400); null or omitted: no limit.',
      ...atLeast('minAmount'),
    }),
  ),
};

export const CustomField = Type.Object({
  id: OptionalNullable(
    Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Generated from the name when null or omitted.' }),
  ),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: StringEnum(customFieldTypes),
  required: OptionalNullable(Type.Boolean({ default: false })),
  placeholder: OptionalNullable(Type.String({ maxLength: 200 })),
  regex: OptionalNullable(
    Type.String({
      maxLength: MAX_PATTERN_LENGTH,
      description:
        'A regular expression in RE2 syntax (github.com/google/re2/wiki/Syntax) the answer must contain a match of (anchor it with ^…$). ' +
        'Run in linear time. A pattern stored before RE2 was used that RE2 cannot compile makes checkouts of the variant a 422 naming ' +
        'the field until the owner saves a valid one.',
      ...rule(
        `must compile in RE2: no lookarounds or backreferences, at most ${MAX_PATTERN_PROGRAM} RE2 instructions (large repetition counts)`,
      ),
    }),
  ),
});
export type CustomFieldInput = Static<typeof CustomField>;

export const CustomFields = Type.Array(CustomField, {
  maxItems: 25,
  description: 'Their ids, given or generated from the names, are distinct.',
  ...uniqueBy('id'),
  ...rule('ids generated from the names must not repeat each other or a given id'),
});

export const ChatIntegration = Type.Object({
  enabled: Type.Boolean({
    description:
      "When true, a checkout's `chatUserId` is kept on the invoice for the owner's bot to grant `roleIds` in `guildId`.",
  }),
  required: OptionalNullable(
    Type.Boolean({
      default: false,
      description: 'With enabled: a checkout of this product without `chatUserId` is a 400.',
    }),
  ),
  guildId: OptionalNullable(Type.String({ pattern: '^[0-9]{1,32}$' })),
  roleIds: OptionalNullable(Type.Array(Type.String({ pattern: '^[0-9]{1,32}$' }), { maxItems: 50 })),
});

const Warranty = Type.Object({
  text: Type.String({ maxLength: 5000 }),
  durationSeconds: Type.Integer({ minimum: 0, maximum: 10 * 365 * 24 * 3600 }),
});

/** Which settings object each product type reads. */
export const settingsKey = {
  serials: 'asSerials',
  service: 'asService',
  dynamic: 'asDynamic',
  file: 'asFile',
} as const;

/** What a download allows unless the variant says otherwise. */
export const FILE_DEFAULTS = { downloadLimit: 5, linkHours: 24 } as const;

const FileRef = {
  ...FileId,
  description: 'A file of this shop (`GET /self/{shopId}/files`).',
  ...references('file'),
};

const License = Type.Object(
  {
    activationLimit: OptionalNullable(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'Instances a licence may be activated on at once; null or omitted: unlimited.',
      }),
    ),
    validDays: OptionalNullable(
      Type.Integer({
        minimum: 1,
        maximum: 36_500,
        description:
          'A licence expires this many days after its sale. Not with expiresAt (400); neither: it never expires.',
      }),
    ),
    expiresAt: OptionalNullable({
      ...Timestamp,
      description: 'Every licence of this variant expires at this time. Not with validDays (400).',
    }),
    keyPattern: OptionalNullable(
      Type.String({
        minLength: 8,
        maxLength: 100,
        description:
          'Generated keys: each `X` is a random letter A–Z or digit, every other character is kept, at least 8 `X`s ' +
          '(e.g. `APP-XXXX-XXXX-XXXX`). Null or omitted: `XXXX-XXXX-XXXX-XXXX`. Not on serials variants (400): their serials are the keys.',
      }),
    ),
  },
  {
    description:
      'Each unit sold is a licence checked through `/v2/public/shops/{shopId}/licenses/…`: on a serials variant each delivered serial, ' +
      'on a service or file variant a key generated at delivery (and delivered like a serial). Not on dynamic variants (400).',
    ...rule(
      'not on dynamic variants; validDays and expiresAt not both; keyPattern only on service and file variants, with at least 8 X and no spaces',
    ),
  },
);

const variantFields = {
  title: Type.String({ minLength: 1, maxLength: 100 }),
  description: OptionalNullable(Type.String({ maxLength: 5000 })),
  priceDetails: PriceDetails,
  gateways: OptionalNullable(
    Type.Array(
      Type.Object({
        gateway: Gateway,
        rules: OptionalNullable(
          Type.Object({
            blockVpn: OptionalNullable(Type.Boolean({ default: false, description: BLOCK_VPN_DESCRIPTION })),
          }),
        ),
        price: OptionalNullable({
          ...Amount,
          description: `${Amount.description} null or omitted: the variant price.`,
        }),
      }),
      {
        maxItems: paymentProviderNames.length,
        description: 'Each gateway at most once. Empty, null or omitted: every enabled gateway, at the variant price.',
        ...uniqueBy('gateway'),
      },
    ),
  ),
  productType: StringEnum(productTypes, {
    description:
      'Which settings object applies: asSerials, asService, asDynamic or asFile (required for service, dynamic and file).',
  }),
  asSerials: OptionalNullable(
    Type.Object({
      serials: OptionalNullable(
        Type.Union([Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100_000 }), Type.String()], {
          description:
            'The undelivered stock: an array, or one text split on `delimiter`; each serial is trimmed and empty ones are dropped. ' +
            'On update, null or omitted keeps the current stock, and a serial already sold is never put back in stock.',
        }),
      ),
      delimiter: OptionalNullable(Type.String({ minLength: 1, maxLength: 10, default: '\n' })),
      removeDuplicates: OptionalNullable(Type.Boolean({ default: false })),
      ...amountLimits,
    }),
  ),
  asService: OptionalNullable(
    Type.Object({
      stock: Type.Optional(Stock),
      text: Type.String({ minLength: 1, maxLength: 20_000 }),
      ...amountLimits,
    }),
  ),
  asDynamic: OptionalNullable(
    Type.Object({
      stock: Type.Optional(Stock),
      externalUrl: {
        ...HttpsUrl(
          'Called with a POST of the order at delivery; its answer (up to 64 KiB, trimmed) is delivered. No redirects are followed; a timeout, ' +
            'a non-2xx answer, an empty answer or one over 64 KiB is a delivery failure recorded on the invoice.',
        ),
        ...rule(
          'resolves to public addresses only, unless the server allows private ones: a loopback, private or link-local address is a 400 when ' +
            'saved (a name that does not resolve yet is accepted) and is refused again at every delivery',
        ),
      },
      ...amountLimits,
    }),
  ),
  asFile: OptionalNullable(
    Type.Object({
      fileIds: Type.Array(FileRef, {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
        description: 'The files each order of this variant may download, in this order; an unknown id is a 400.',
      }),
      downloadLimit: OptionalNullable(
        Type.Integer({
          minimum: 0,
          maximum: 10_000,
          default: FILE_DEFAULTS.downloadLimit,
          description:
            'Downloads of each file per order; 0 = unlimited; null or omitted: 5. A resumed download (a range after the first byte) does not count.',
        }),
      ),
      linkHours: OptionalNullable(
        Type.Integer({
          minimum: 1,
          maximum: 8760,
          default: FILE_DEFAULTS.linkHours,
          description:
            'How long a download link works; a fresh one is issued whenever the order page or the customer area is opened. Null or omitted: 24.',
        }),
      ),
      stock: Type.Optional(Stock),
      ...amountLimits,
    }),
  ),
  license: OptionalNullable(License),
  customerNote: OptionalNullable(Type.String({ maxLength: 5000 })),
  redirectUrl: OptionalNullable(HttpsUrl()),
  customFields: OptionalNullable(CustomFields),
  warranty: OptionalNullable(Warranty),
};

/** A service variant needs asService, a dynamic one asDynamic, a file one asFile: the settings object its type reads. */
const settingsForType = {
  allOf: (['service', 'dynamic', 'file'] as const).map((type) => ({
    if: { type: 'object', properties: { productType: { const: type } }, required: ['productType'] },
    then: { type: 'object', properties: { [settingsKey[type]]: { type: 'object' } }, required: [settingsKey[type]] },
  })),
};

const NewVariant = Type.Object(variantFields, settingsForType);
const VariantUpdate = Type.Object(
  {
    id: OptionalNullable({
      ...Id,
      description: 'A variant of this product, edited; null or omitted adds a new variant.',
      ...references('variant'),
    }),
    ...variantFields,
  },
  settingsForType,
);
export type VariantInput = Static<typeof VariantUpdate>;

const productFields = {
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 50_000 }),
  shortDescription: OptionalNullable(Type.String({ maxLength: 500 })),
  path: OptionalNullable(
    Type.String({
      pattern: SLUG_PATTERN,
      maxLength: 100,
      description: 'Unique per shop (409). null or omitted: generated from the title on create, kept on update.',
    }),
  ),
  seo: OptionalNullable(
    Type.Object({
      metaTitle: OptionalNullable(Type.String({ maxLength: 70 })),
      metaDescription: OptionalNullable(Type.String({ maxLength: 160 })),
    }),
  ),
  unlisted: OptionalNullable(Type.Boolean({ default: false })),
  private: OptionalNullable(Type.Boolean({ default: false })),
  onHold: OptionalNullable(Type.Boolean({ default: false })),
  isInternal: OptionalNullable(Type.Boolean({ default: false })),
  customerNote: OptionalNullable(Type.String({ maxLength: 5000 })),
  chatIntegration: OptionalNullable(ChatIntegration),
};

/** POST: a new product; variant ids are not read (a product read elsewhere can be posted as a copy). */
export const NewProduct = Type.Object({
  ...productFields,
  variants: Type.Array(NewVariant, { minItems: 1, maxItems: 50 }),
});
export type NewProduct = Static<typeof NewProduct>;

/** PUT: the whole product; what GET answers can be sent back, with or without changes. */
export const ProductUpdate = Type.Object({
  ...productFields,
  variants: Type.Array(VariantUpdate, {
    minItems: 1,
    maxItems: 50,
    description: 'A variant with `id` is edited, one without is added, one left out is removed. Each id at most once.',
    ...uniqueBy('id'),
  }),
});
export type ProductInput = Static<typeof ProductUpdate>;

const limitsOut = { minAmount: Type.Integer(), maxAmount: Nullable(Type.Integer()) };

function variantSchema(withSerials: boolean): TSchema {
  return Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    description: Nullable(Type.String()),
    priceDetails: Type.Object({ amount: Type.Number(), currency: Type.String() }),
    gateways: Type.Array(
      Type.Object({
        gateway: Type.String(),
        rules: Type.Object({ blockVpn: Type.Boolean() }),
        price: Nullable(Type.Number()),
      }),
    ),
    productType: StringEnum(productTypes),
    stock: Nullable(Type.Integer({ description: 'Units available now; null = unlimited.' })),
    asSerials: Nullable(
      Type.Object({
        ...(withSerials
          ? { serials: Type.Array(Type.String(), { description: 'Undelivered serials (owner only).' }) }
          : {}),
        delimiter: Type.String(),
        removeDuplicates: Type.Boolean(),
        ...limitsOut,
      }),
    ),
    asService: Nullable(Type.Object({ stock: Nullable(Type.Integer()), text: Type.String(), ...limitsOut })),
    asDynamic: Nullable(Type.Object({ stock: Nullable(Type.Integer()), externalUrl: Type.String(), ...limitsOut })),
    asFile: Nullable(
      Type.Object({
        stock: Nullable(Type.Integer()),
        fileIds: Type.Array(Type.String()),
        files: Type.Array(
          Type.Object({
            id: Type.String(),
            name: Type.String(),
            size: Type.Integer({ description: 'Bytes.' }),
            contentType: Type.String(),
          }),
          { description: 'The files, in fileIds order.' },
        ),
        downloadLimit: Type.Integer({ description: '0 = unlimited.' }),
        linkHours: Type.Integer(),
        ...limitsOut,
      }),
    ),
    license: Nullable(
      Type.Object({
        activationLimit: Nullable(Type.Integer()),
        validDays: Nullable(Type.Integer()),
        expiresAt: NullableTimestamp,
        keyPattern: Nullable(Type.String({ description: 'null on serials variants: their serials are the keys.' })),
      }),
    ),
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

export const ProductImage = Type.Object({
  id: Type.Integer(),
  url: Type.String({ description: 'Where the image is served: /uploads/<name> (sizes for srcset beside it).' }),
  alt: Type.String({ description: "What the image shows, for people who cannot see it; '' when it only decorates." }),
});

export const ImageParams = Type.Object({ shopId: Id, productId: Id, imageId: Id });

export const ImageOrder = Type.Object({
  images: Type.Array(
    Type.Object({
      id: Type.Integer({
        minimum: 1,
        ...rule("an image of this product's gallery (`GET …/images`), listed at most once"),
      }),
      alt: Type.String({
        maxLength: 300,
        description: 'The description, trimmed; empty for an image that only decorates.',
      }),
    }),
    {
      maxItems: 12,
      ...uniqueBy('id'),
      description:
        'Images of the gallery in their new order, each with its description; those not listed follow them in the ' +
        'order they had, their descriptions kept.',
    },
  ),
});
export type ImageOrder = Static<typeof ImageOrder>;

function productSchema(withSerials: boolean) {
  return Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    shortDescription: Nullable(Type.String()),
    description: Type.String(),
    path: Type.String(),
    seo: Type.Object({
      metaTitle: Nullable(Type.String()),
      metaDescription: Nullable(Type.String()),
      imageUrl: Nullable(Type.String()),
    }),
    thumbnailUrl: Nullable(Type.String()),
    images: Type.Array(ProductImage, {
      description: 'The gallery: images besides the thumbnail, in their order on the product page (at most 12).',
    }),
    unlisted: Type.Boolean(),
    private: Type.Boolean(),
    onHold: Type.Boolean(),
    isInternal: Type.Boolean(),
    customerNote: Nullable(Type.String()),
    chatIntegration: Nullable(
      Type.Object({
        enabled: Type.Boolean(),
        required: Type.Boolean(),
        guildId: Nullable(Type.String()),
        roleIds: Type.Array(Type.String()),
      }),
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
  Type.Object({
    orderBy: Type.Optional(
      StringEnum(productOrders, {
        default: '-createdAt',
        description: '"-" sorts descending; price is the lowest variant price.',
      }),
    ),
  }),
]);
export type ProductListQuery = Static<typeof ProductListQuery>;

export const ProductParams = Type.Object({ shopId: Id, productId: Id });
export const VariantParams = Type.Object({ shopId: Id, productId: Id, variantId: Id });

/** How many serials one restock may carry, once a text is split. */
export const MAX_RESTOCK_SERIALS = 10_000;
/** The longest serial a restock takes, once trimmed. */
export const MAX_SERIAL_LENGTH = 2000;

export const RestockBody = Type.Object({
  serials: Type.Union(
    [
      Type.Array(Type.String({ maxLength: MAX_SERIAL_LENGTH }), { minItems: 1, maxItems: MAX_RESTOCK_SERIALS }),
      Type.String({ minLength: 1 }),
    ],
    {
      description:
        'The serials to add: an array, or one text split on `delimiter` (as `asSerials.serials`); each is trimmed and blank ones are skipped.',
      ...rule(
        `a text holds at most ${MAX_RESTOCK_SERIALS.toLocaleString('en')} serials once split, each at most ${MAX_SERIAL_LENGTH.toLocaleString('en')} characters once trimmed`,
      ),
    },
  ),
  delimiter: OptionalNullable(
    Type.String({
      minLength: 1,
      maxLength: 10,
      default: '\n',
      description: 'What separates the serials of a text: a newline (CRLF too) by default.',
    }),
  ),
});
export type RestockBody = Static<typeof RestockBody>;

export const RestockResult = Type.Object({
  added: Type.Array(Type.String(), { description: 'Serials now in stock, in the order given.' }),
  duplicates: Type.Array(Type.String(), {
    description:
      'Serials not added because the variant already holds them (in stock, or reserved by a pending invoice: such a serial comes ' +
      'back to stock if that invoice ends unpaid) or because the request repeats them (the first is added).',
  }),
  alreadySold: Type.Array(Type.String(), {
    description:
      'Serials not added because the variant delivered them before: each serial is delivered at most once, ever.',
  }),
  stock: Type.Integer({ description: "The variant's stock after the call: its undelivered, unreserved serials." }),
});

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

const ProductIds = Type.Array(
  { ...Id, ...references('product') },
  {
    minItems: 1,
    maxItems: 500,
    description: '1–500 product ids of this shop (a repeated id counts once); any other id makes the whole call a 404.',
  },
);

const visibilityFlags = ['unlisted', 'private', 'onHold'] as const;

export const BulkBodies = {
  customFields: Type.Object({ productIds: ProductIds, customFields: CustomFields }),
  customerNote: Type.Object({
    productIds: ProductIds,
    note: Nullable(Type.String({ maxLength: 5000, description: 'null or empty clears.' })),
  }),
  visibility: Type.Object(
    {
      productIds: ProductIds,
      unlisted: OptionalNullable(Type.Boolean()),
      private: OptionalNullable(Type.Boolean()),
      onHold: OptionalNullable(Type.Boolean()),
    },
    {
      description: 'Sets the flags given; null or omitted keeps a flag. At least one must be given.',
      anyOf: visibilityFlags.map((flag) => ({
        type: 'object',
        required: [flag],
        properties: { [flag]: { type: 'boolean' } },
      })),
      errorMessage: { anyOf: 'must set at least one of unlisted, private, onHold' },
    },
  ),
  chatIntegration: Type.Object({ productIds: ProductIds, chatIntegration: ChatIntegration }),
  delete: Type.Object({ productIds: ProductIds }),
  paymentMethods: Type.Object({
    productIds: ProductIds,
    gatewaysList: Type.Object(
      Object.fromEntries(paymentProviderNames.map((gateway) => [gateway, Type.Optional(Type.Boolean())])) as Record<
        string,
        TOptional<TBoolean>
      >,
      {
        minProperties: 1,
        // Not `false`: ajv would drop an unknown gateway silently (removeAdditional) instead of refusing it.
        additionalProperties: Type.Unsafe({ not: {}, errorMessage: 'is not a gateway' }),
        description:
          'Gateway → true to allow it on every variant, false to remove it; at least one gateway, and no other name (400). ' +
          'Removing the last gateway of a variant is a 422 that changes nothing.',
        errorMessage: { minProperties: 'must name at least one gateway' },
      },
    ),
  }),
};
export const BulkResult = Type.Object({ updated: Type.Integer() });

import { type Static, Type } from '@sinclair/typebox';
import { CursorPageQuery, Email, Id, Nullable, OptionalNullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { DateRangeQuery } from '../../schemas/dates.js';
import { MAX_ORDER_PARTS, references, rule, uniqueBy } from '../../schemas/rules.js';
import { licenseStatuses } from '../licenses/index.js';
import { Gateway, MAX_ANSWER_LENGTH } from '../products/index.js';

export const invoiceStatuses = ['pending', 'completed', 'expired', 'cancelled'] as const;
export const invoiceOrders = ['createdAt', '-createdAt', 'total', '-total'] as const;

export const InvoiceId = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: 'Public invoice id (24 url-safe characters).',
});
export const InvoiceParams = Type.Object({ shopId: Id, invoiceId: InvoiceId });
export const PublicInvoiceParams = Type.Object({ invoiceId: InvoiceId });

export const CheckoutBody = Type.Object({
  customerEmail: Email('Stored lower-case.'),
  gateway: Gateway,
  parts: Type.Array(
    Type.Object({
      productId: {
        ...Id,
        description: 'A product of this shop that is not private or internal (400 otherwise).',
        ...references('publicProduct'),
      },
      productVariantId: {
        ...Id,
        description: 'A variant of that product (400 otherwise).',
        ...references('publicVariant'),
      },
      quantity: Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: "Within the variant's minAmount and maxAmount (422 otherwise).",
      }),
    }),
    {
      minItems: 1,
      maxItems: MAX_ORDER_PARTS,
      description: 'Each variant at most once.',
      ...uniqueBy('productVariantId'),
    },
  ),
  coupon: OptionalNullable(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A coupon code; one that is not valid for this order is a 422.',
    }),
  ),
  customFields: OptionalNullable(
    Type.Record(
      Type.String(),
      Type.Union([Type.String({ maxLength: MAX_ANSWER_LENGTH }), Type.Number(), Type.Boolean()]),
      {
        maxProperties: 50,
        description:
          `Answers by custom field id, each at most ${MAX_ANSWER_LENGTH} characters, checked against the variants' custom fields ` +
          '(patterns with RE2, in linear time); answers to no field are ignored.',
        ...rule(
          "each of the variants' custom fields: answered when required, of its type (a number, an e-mail address, true or false) and matching " +
            "its regex; the order's patterned answers together may cost at most 500,000 pattern instructions × characters to match (a 400 " +
            'naming the field past it)',
        ),
      },
    ),
  ),
  affiliateCode: OptionalNullable(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: "A customer's referral code; unknown or disabled codes are ignored.",
    }),
  ),
  key: OptionalNullable(
    Type.String({ maxLength: 128, description: 'The storefront password, when the shop has one.' }),
  ),
  chatUserId: OptionalNullable(
    Type.String({
      pattern: '^[0-9]{1,32}$',
      description:
        "The buyer's user id in the shop's chat server (digits, like the products' guildId and roleIds). Kept on the invoice (owner view " +
        "`chatUserId`, and so in `invoice.*` webhooks) when a product of the order has chat integration enabled, so the owner's bot can " +
        'grant the roles; ignored otherwise.',
      ...rule(
        'required (400 naming it and the part) when a product of the order has chat integration enabled and required',
      ),
    }),
  ),
});
export type CheckoutBody = Static<typeof CheckoutBody>;

const Money = Type.Number();

export const Payment = Type.Object({
  gateway: Type.String(),
  amount: Money,
  currency: Type.String(),
  reference: Type.String({
    description:
      "Quote it with the payment: the order's short payment reference (`K7Q2-M9XD`: 8 characters without look-alikes, " +
      'unique in the shop). It opens nothing, so it may appear on public tip pages and at providers; the invoice id, which ' +
      'opens the invoice, is only in its link. Orders placed before references existed quote their invoice id.',
  }),
  instructions: Type.String(),
  handle: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  cashtag: Type.Optional(Type.String()),
  receiveCurrency: Type.Optional(Type.String()),
  terminalId: Type.Optional(Type.String()),
  url: Type.Optional(
    Type.String({
      description:
        "Card (`cardconnect`) and crypto (`cryptocommerce`) orders: the provider's page where the buyer pays. The provider " +
        'sends the buyer back to the invoice page, and tells shopd when the money arrived.',
    }),
  ),
  closesAt: Type.Optional(
    Type.String({
      ...Timestamp,
      description: "When the provider's page closes: pay before then. The invoice expires 10 minutes later.",
    }),
  ),
  note: Type.Optional(
    Type.String({
      description:
        'Present while a payment for the order waits for the owner (an underpayment, another amount, one awaiting ' +
        'confirmation): the order is held, and the owner completes or cancels it.',
    }),
  ),
});

/** The invoice's own copy of what was sold: catalog edits and deletions do not change it. */
const InvoicePart = Type.Object({
  id: Type.Integer({ description: 'partInvoiceId in replacements.' }),
  productId: Type.Integer(),
  variantId: Type.Integer(),
  title: Type.String(),
  variantTitle: Type.String(),
  quantity: Type.Integer(),
  unitPrice: Money,
  total: Money,
  deliverables: Type.Array(Type.String(), {
    description: 'One serial per unit, the service text or the dynamic answer; empty until the invoice completes.',
  }),
});

const Replacement = Type.Object({
  partInvoiceId: Type.Integer(),
  quantity: Type.Integer(),
  deliverables: Type.Array(Type.String()),
  createdAt: Timestamp,
});

/** The link of the invoice's storefront page, in both views. */
const InvoiceUrl = Type.String({
  description:
    "The absolute link of the invoice's storefront page (the buyer's page: status, payment instructions, goods once completed): " +
    "`{storefrontUrl}/invoices/{id}`, on the shop's custom domain, subdomain host or `{PUBLIC_URL}/s/{subdomain}` (see the shop's " +
    '`storefrontUrl`). Anyone with it can see the invoice: share it with the buyer only.',
});

/** What the owner sees of an invoice's payment. */
const PaymentRecord = Type.Object({
  providerId: Nullable(
    Type.String({
      description:
        "The provider's id of the payment page started for a card or crypto order (a Checkout Session id, a charge code).",
    }),
  ),
  url: Nullable(Type.String({ description: "The provider's page the buyer pays on." })),
  closesAt: Nullable(
    Type.String({ ...Timestamp, description: 'When that page closes; the invoice expires 10 minutes later.' }),
  ),
  confirmedBy: Nullable(
    StringEnum(['provider', 'owner', 'balance'] as const, {
      description:
        "Who confirmed the payment: the provider's callback, the owner (`process`), or the store balance. Only a payment " +
        'the provider confirmed is refunded through it.',
    }),
  ),
  reference: Nullable(
    Type.String({
      description:
        "What identifies the money received: the provider's payment id (a PaymentIntent, a transaction), or the reference the " +
        'owner gave when processing a manual payment.',
    }),
  ),
  note: Nullable(
    Type.String({
      description:
        'What the owner must look at: an underpayment or a payment awaiting confirmation (the order is then held for 7 days, ' +
        'its stock reserved, for the owner to process or cancel), a payment of another amount, or one made after the order ended.',
    }),
  ),
});

const Refund = Type.Object({
  id: Type.Integer(),
  amount: Money,
  reason: Nullable(Type.String()),
  method: StringEnum(['provider', 'balance', 'recorded'] as const, {
    description:
      "`provider`: refunded through the payment provider (card); `balance`: credited to the buyer's store balance (balance " +
      'orders); `recorded`: written down here, the owner sends the money (crypto, manual methods).',
  }),
  providerRefundId: Nullable(Type.String()),
  status: StringEnum(['pending', 'succeeded'] as const, {
    description: '`pending` only while the provider is being asked (or if the server stopped then).',
  }),
  createdAt: Timestamp,
});

/** A file of a completed order, with a link minted when the order was read. */
export const InvoiceDownload = Type.Object({
  fileId: Type.String(),
  name: Type.String(),
  size: Type.Integer({ description: 'Bytes.' }),
  url: Type.String({
    description:
      'A signed link that serves the file as an attachment until `expiresAt`; reading the order again issues a fresh one. ' +
      'Expired, used up, refunded or altered links answer 410 or 403 and count nothing.',
  }),
  expiresAt: Timestamp,
  remaining: Nullable(
    Type.Integer({
      description: 'Downloads left of this file for this order; null = unlimited. A resumed download does not count.',
    }),
  ),
});

/** One download served, as the owner sees it on the order. */
export const InvoiceDownloadLogEntry = Type.Object({
  fileId: Type.String(),
  name: Type.String(),
  at: Timestamp,
  ip: Nullable(Type.String()),
  userAgent: Nullable(Type.String()),
  bytes: Type.Integer({ description: 'Bytes sent (a download cut short sent fewer than the file).' }),
  counted: Type.Boolean({ description: 'false for a resumed range, which does not count against the limit.' }),
});

/** A licence the order issued. */
export const InvoiceLicense = Type.Object({
  id: Type.Integer(),
  licenseKey: Type.String(),
  status: StringEnum(licenseStatuses),
  activationLimit: Nullable(Type.Integer({ description: 'null = unlimited.' })),
  activationUsage: Type.Integer(),
  expiresAt: Nullable(Timestamp),
  productId: Type.Integer(),
});

export const OwnerInvoice = Type.Object({
  id: Type.String(),
  url: InvoiceUrl,
  paymentCode: Nullable(
    Type.String({
      description:
        'The short reference the buyer quotes with a manual payment (`K7Q2-M9XD`), shown in the payment instructions and ' +
        "the buyer's mails instead of the invoice id; find the order by it with `searchString` (with or without the dash, " +
        'any case). Null on orders placed before references existed.',
    }),
  ),
  status: StringEnum(invoiceStatuses),
  gateway: Type.String(),
  customerEmail: Type.String(),
  customerId: Type.Integer(),
  parts: Type.Array(InvoicePart),
  coupon: Nullable(Type.String()),
  subtotal: Money,
  discount: Money,
  total: Money,
  currency: Type.String(),
  customFields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  ip: Nullable(Type.String()),
  userAgent: Nullable(Type.String()),
  country: Nullable(Type.String()),
  affiliateCode: Nullable(Type.String()),
  chatUserId: Nullable(
    Type.String({
      description:
        "The buyer's chat user id, given at checkout for a product with chat integration enabled: whom the owner's bot grants the product's roles.",
    }),
  ),
  commission: Money,
  replacements: Type.Array(Replacement),
  feedback: Nullable(
    Type.Object({
      id: Type.Integer(),
      rating: Type.Integer(),
      comment: Nullable(Type.String()),
      answer: Nullable(Type.String()),
      createdAt: Timestamp,
    }),
  ),
  deliveryError: Nullable(
    Type.String({ description: 'Why the last dynamic delivery failed; processing again retries.' }),
  ),
  payment: PaymentRecord,
  refunded: Type.Number({ description: 'What was refunded so far (the sum of `refunds`), in the currency.' }),
  refunds: Type.Array(Refund),
  downloads: Type.Optional(
    Type.Array(InvoiceDownloadLogEntry, {
      description:
        "Every download of the order's files, newest first. In the single-invoice view and webhooks, not in lists.",
    }),
  ),
  licenses: Type.Optional(
    Type.Array(InvoiceLicense, {
      description: 'The licences the order issued. In the single-invoice view and webhooks, not in lists.',
    }),
  ),
  dispute: Type.Optional(
    Nullable(
      Type.Object(
        {
          id: Type.Integer(),
          providerDisputeId: Type.String(),
          status: StringEnum(['needs_response', 'under_review', 'won', 'lost'] as const),
          reason: Type.String(),
          amount: Nullable(Type.Number()),
          currency: Type.String(),
          createdAt: Timestamp,
          updatedAt: Timestamp,
          evidenceSubmittedAt: Nullable(Timestamp),
        },
        {
          description:
            "A payment dispute (chargeback) on the order, the latest one; null when there is none. The invoice's status stays what it was. " +
            'In the single-invoice view and webhooks, not in lists; GET /self/{shopId}/disputes/{disputeId} has the evidence.',
        },
      ),
    ),
  ),
  createdAt: Timestamp,
  completedAt: Nullable(Timestamp),
  expiresAt: Timestamp,
});

/** The customer's view: no e-mail, IP or other buyer data; deliverables once completed. */
export const PublicInvoice = Type.Object({
  id: Type.String(),
  url: InvoiceUrl,
  shopId: Type.Integer(),
  status: StringEnum(invoiceStatuses),
  gateway: Type.String(),
  parts: Type.Array(InvoicePart),
  replacements: Type.Array(Replacement),
  coupon: Nullable(Type.String()),
  subtotal: Money,
  discount: Money,
  total: Money,
  currency: Type.String(),
  payment: Nullable(Payment),
  refunded: Type.Number({ description: 'What was refunded so far, in the currency.' }),
  downloads: Type.Array(InvoiceDownload, {
    description:
      "A completed order's files (file products), each with a fresh signed link; empty otherwise or after a full refund.",
  }),
  createdAt: Timestamp,
  completedAt: Nullable(Timestamp),
  expiresAt: Timestamp,
});

export const InvoiceListQuery = Type.Composite([
  CursorPageQuery,
  Type.Object({
    status: Type.Optional(StringEnum(invoiceStatuses)),
    gateway: Type.Optional(Gateway),
    ...DateRangeQuery,
    customerId: Type.Optional(Id),
    productId: Type.Optional(Id),
    orderBy: Type.Optional(
      StringEnum(invoiceOrders, {
        default: '-createdAt',
        description:
          '"-" sorts descending; total is the amount charged (after the discount). Ties are broken by the invoice id. ' +
          'A cursor is valid only in the order that returned it (400 otherwise).',
      }),
    ),
  }),
]);
export type InvoiceListQuery = Static<typeof InvoiceListQuery>;

export const ReplacementBody = Type.Object({
  partInvoiceId: { ...Id, description: 'A part of this invoice (400 otherwise).', ...references('invoicePart') },
  quantity: Type.Integer({ minimum: 1, maximum: 1_000_000, description: '1 … the part quantity (more is a 422).' }),
});

export const ResendBody = Type.Object({ email: OptionalNullable(Email('null or omitted: the address of the order.')) });
export const ResendResult = Type.Object({ invoiceId: Type.String(), to: Type.String() });

export const ProcessBody = Type.Object({
  paymentReference: OptionalNullable(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'How the money arrived, as the owner sees it (the transfer id, the note the buyer quoted): kept on the invoice as ' +
        '`payment.reference`.',
    }),
  ),
});

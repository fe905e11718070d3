import { Type } from '@sinclair/typebox';
import { Id, Nullable, NullableTimestamp, ShopParams, StringEnum, Timestamp } from '../../schemas/common.js';

export const disputeStatuses = ['needs_response', 'under_review', 'won', 'lost'] as const;

export const DisputeParams = Type.Composite([ShopParams, Type.Object({ disputeId: Id })]);

export const Dispute = Type.Object(
  {
    id: Id,
    invoiceId: Type.String(),
    provider: Type.String({ description: 'The gateway that reported it: `cardconnect` (Stripe).' }),
    providerDisputeId: Type.String({ description: "The provider's id of the dispute (Stripe's `dp_…`)." }),
    status: StringEnum(disputeStatuses, {
      description:
        "needs_response: evidence is due; under_review: the provider or the bank decides; won or lost: closed. Stripe's inquiries (`warning_*`) count as the dispute they may become.",
    }),
    reason: Type.String({ description: "The provider's reason code, e.g. `fraudulent`, `product_not_received`." }),
    amount: Nullable(
      Type.Number({
        description: 'Disputed, in `currency`; null when the provider gave it in a currency shopd does not know.',
      }),
    ),
    currency: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    evidenceSubmittedAt: NullableTimestamp,
    submitError: Nullable(
      Type.String({ description: 'Why the last submission of the evidence failed; null when it did not.' }),
    ),
  },
  { description: 'A payment dispute (chargeback) on an order. The invoice keeps its own status beside it.' },
);

const Sighting = Type.Object({ at: Timestamp, ip: Nullable(Type.String()), userAgent: Nullable(Type.String()) });

export const DisputeEvidence = Type.Object(
  {
    customer: Type.Object({
      email: Type.String(),
      purchaseIp: Nullable(Type.String()),
      purchaseUserAgent: Nullable(Type.String()),
      country: Nullable(Type.String()),
    }),
    order: Type.Object({
      invoiceId: Type.String(),
      createdAt: Timestamp,
      completedAt: NullableTimestamp,
      total: Type.Number(),
      currency: Type.String(),
    }),
    delivered: Type.Object({
      at: NullableTimestamp,
      items: Type.Array(Type.Object({ title: Type.String(), quantity: Type.Integer() }), {
        description: 'What was delivered, by name: never the keys or serials themselves.',
      }),
    }),
    invoiceViews: Type.Array(Sighting, {
      description: "The buyer's views of the invoice page (public API and storefront), oldest first.",
    }),
    downloads: Type.Array(Type.Composite([Type.Object({ file: Type.String(), bytes: Type.Integer() }), Sighting])),
    licenseActivations: Type.Array(
      Type.Object({
        licenseId: Type.Integer(),
        productId: Type.Integer(),
        instance: Type.String(),
        activatedAt: Timestamp,
        deactivatedAt: NullableTimestamp,
        ip: Nullable(Type.String({ description: 'Null for activations before it was recorded.' })),
        userAgent: Nullable(Type.String()),
      }),
    ),
    terms: Nullable(
      Type.String({
        description:
          'The terms of service the order was placed under (see `termsAtCheckout`); null when the shop had none.',
      }),
    ),
    termsAtCheckout: Type.Boolean({
      description:
        'Whether `terms` were recorded when the order was placed (the storefront has the buyer tick them); false for ' +
        "an order placed before shopd recorded them: then they are the shop's terms as they are now.",
    }),
  },
  { description: 'What shopd knows that shows the order was made and delivered, assembled when asked.' },
);

export const DisputeDetail = Type.Composite([
  Dispute,
  Type.Object({
    evidence: DisputeEvidence,
    submittedEvidence: Nullable(
      Type.Record(Type.String(), Type.String(), {
        description:
          "The fields sent to the provider's disputes API (Stripe `evidence`) when the evidence was submitted.",
      }),
    ),
  }),
]);

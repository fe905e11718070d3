import { type Static, Type } from '@sinclair/typebox';
import { Id, Nullable, NullableTimestamp, OptionalNullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { DateFilter } from '../../schemas/dates.js';
import { MAX_AMOUNT_MAJOR } from '../../schemas/money.js';
import { atLeast, minorUnits, references } from '../../schemas/rules.js';
import { paymentProviderNames } from '../shops/index.js';

export const COUPON_CODE_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
export const MAX_RESTRICTED_PRODUCTS = 500;
export const MAX_COUPON_USES = 1_000_000_000;

export const CouponInput = Type.Object(
  {
    name: Type.String({
      pattern: COUPON_CODE_PATTERN,
      description:
        'The code buyers enter: 1–64 of A–Z, a–z, 0–9, `_` and `-`. Unique per shop without regard to case (409).',
    }),
    note: OptionalNullable(Type.String({ maxLength: 500, description: 'For the owner only; null or omitted clears.' })),
    discount: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_AMOUNT_MAJOR,
      description:
        'With `isFixed`: an amount in the major unit of the shop currency, with at most its minor-unit digits. ' +
        'Otherwise a percentage: more than 0, at most 100, at most 2 decimals.',
    }),
    isFixed: Type.Boolean({
      description:
        'true: a fixed amount off the eligible subtotal (never more than it); false: a percentage of it, rounded down to the minor unit.',
    }),
    startDate: OptionalNullable({
      ...DateFilter,
      description: `From when the coupon is valid (a bare date: from the start of that day in the shop's timezone). null or omitted: at once. ${DateFilter.description}`,
    }),
    endDate: OptionalNullable({
      ...DateFilter,
      description: `Until when the coupon is valid, inclusive (a bare date: to the end of that day); not before startDate (400). null or omitted: never expires. ${DateFilter.description}`,
      ...atLeast('startDate'),
    }),
    restrictToProducts: OptionalNullable(
      Type.Array(
        { ...Id, ...references('product') },
        {
          maxItems: MAX_RESTRICTED_PRODUCTS,
          uniqueItems: true,
          errorMessage: { uniqueItems: 'must not list an id twice' },
          default: [],
          description:
            'Distinct ids of products of this shop (any other id is a 400 naming it; an id already on the coupon stays accepted after its product is deleted). ' +
            'Empty, null or omitted: every product. When set, an order needs at least one of them and the discount applies only to their parts.',
        },
      ),
    ),
    restrictToGateways: OptionalNullable(
      Type.Array(StringEnum(paymentProviderNames), {
        uniqueItems: true,
        maxItems: paymentProviderNames.length,
        default: [],
        description: 'Gateways the coupon may be used with; empty, null or omitted: every gateway.',
      }),
    ),
    maxUses: OptionalNullable(
      Type.Integer({
        minimum: 1,
        maximum: MAX_COUPON_USES,
        description:
          'How many orders may hold the coupon; null or omitted: unlimited. On update, lower than the current `uses` is a 409.',
      }),
    ),
  },
  {
    // A percentage has its bounds in the schema; a fixed amount's decimals depend on the shop currency.
    if: { type: 'object', properties: { isFixed: { const: true } }, required: ['isFixed'] },
    then: { type: 'object', properties: { discount: minorUnits() } },
    else: {
      type: 'object',
      properties: {
        discount: {
          type: 'number',
          maximum: 100,
          multipleOf: 0.01,
          errorMessage: {
            maximum: 'must be at most 100 for a percentage',
            multipleOf: 'must have at most 2 decimals for a percentage',
          },
        },
      },
    },
  },
);
export type CouponInput = Static<typeof CouponInput>;

export const Coupon = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'The code, as the owner wrote it.' }),
  note: Nullable(Type.String()),
  discount: Type.Number({ description: 'A percentage, or with `isFixed` an amount in `currency`.' }),
  isFixed: Type.Boolean(),
  currency: Nullable(Type.String({ description: 'The shop currency for a fixed discount; null for a percentage.' })),
  startDate: NullableTimestamp,
  endDate: NullableTimestamp,
  restrictToProducts: Type.Array(Type.Integer()),
  restrictToGateways: Type.Array(Type.String()),
  maxUses: Nullable(Type.Integer()),
  uses: Type.Integer({
    description:
      'Orders holding the coupon: pending and completed invoices. An invoice that expires or is cancelled gives its use back. Read-only.',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CouponParams = Type.Object({ shopId: Id, couponId: Id });

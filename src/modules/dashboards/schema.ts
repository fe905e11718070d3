import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../schemas/common.js';
import { DateRangeQuery } from '../../schemas/dates.js';
import { rule } from '../../schemas/rules.js';

const span = rule(
  'the range, with a missing end taken as today and a missing start as 29 days before the end, covers 1 to 366 days',
);
export const DashboardQuery = Type.Object({
  fromDate: Type.Optional({
    ...DateRangeQuery.fromDate,
    description: `${DateRangeQuery.fromDate.description} Default: 29 days before toDate.`,
    ...span,
  }),
  toDate: Type.Optional({
    ...DateRangeQuery.toDate,
    description: `${DateRangeQuery.toDate.description} Default: today. At most 366 days after fromDate.`,
    ...span,
  }),
});

const Money = Type.Number({ description: "Major unit of the shop's currency." });

const range = {
  fromDate: Timestamp,
  toDate: Timestamp,
  currency: Type.String({ description: "The shop's currency, of every amount here." }),
  rollupsRebuilding: Type.Boolean({
    description:
      "True for a while after a timezone change, while the figures' rollups are rebuilt in the new local days: totals over the range are exact, " +
      'but the series days and ordersByHour are still those of the previous offset. False otherwise.',
  }),
};

export const GeneralDashboard = Type.Object({
  ...range,
  revenue: Type.Number({ description: 'Sum of the totals of invoices completed in the range (after discounts).' }),
  ordersCount: Type.Integer({ description: 'Invoices created in the range, whatever their status.' }),
  completedOrders: Type.Integer({ description: 'Invoices completed in the range.' }),
  pendingOrders: Type.Integer({ description: 'Invoices created in the range that are still awaiting payment.' }),
  productsSold: Type.Integer({ description: 'Units in the invoices completed in the range.' }),
  newCustomers: Type.Integer({ description: 'Customers first seen in the range.' }),
  averageOrderValue: Type.Number({
    description: 'revenue ÷ completedOrders, rounded half up to the minor unit; 0 without orders.',
  }),
  series: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date', description: "A day in the shop's timezone." }),
      revenue: Type.Number({ description: 'Totals of the invoices completed that day.' }),
      orders: Type.Integer({ description: 'Invoices created that day.' }),
    }),
    { description: 'One point per day of the range, oldest first, days without orders included.' },
  ),
});

export const AdvancedDashboard = Type.Object({
  ...range,
  revenueByGateway: Type.Array(
    Type.Object({
      gateway: Type.String(),
      revenue: Money,
      orders: Type.Integer({ description: 'Completed invoices.' }),
    }),
    {
      description: 'Completed invoices by payment gateway, highest revenue first.',
    },
  ),
  topProducts: Type.Array(
    Type.Object({
      productId: Type.Integer(),
      title: Type.String({
        description:
          'As sold in its latest order (by placement) completed up to the end of the range: a product renamed since shows that title.',
      }),
      revenue: Type.Number({ description: 'Part totals before order-level coupon discounts.' }),
      quantity: Type.Integer({ description: 'Units sold.' }),
    }),
    { description: 'Up to 10 products, by revenue from the invoices completed in the range.' },
  ),
  conversionRate: Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'Of the invoices created in the range, the share completed (4 decimals).',
  }),
  returningCustomerRate: Type.Number({
    minimum: 0,
    maximum: 1,
    description:
      'Repeat-purchase rate: of the invoices completed in the range, the share placed by a customer who had already completed an order before (4 decimals). ' +
      'Whether an invoice is a repeat purchase is decided when it completes and kept with it, so the rate adds up exactly over any range from daily rollups; ' +
      'a share of distinct customers over an arbitrary range could not be rolled up and would mean counting every order of the range.',
  }),
  averageRating: Nullable(
    Type.Number({ description: 'Mean rating (1–5, 2 decimals) of the feedbacks left in the range; null when none.' }),
  ),
  ordersByHour: Type.Array(Type.Integer(), {
    minItems: 24,
    maxItems: 24,
    description: "Invoices completed in the range by hour of day (0–23) in the shop's timezone.",
  }),
  refundsAndReplacements: Type.Object(
    {
      count: Type.Integer({ description: 'Replacements delivered plus refunds made.' }),
      units: Type.Integer({ description: 'Units the replacements delivered.' }),
      replacements: Type.Integer({ description: 'Replacements delivered.' }),
      refunds: Type.Integer({ description: 'Refunds made (full or partial), by the day of the refund.' }),
      refundedAmount: Type.Number({ description: 'What they gave back, in the shop currency.' }),
    },
    {
      description:
        'Replacements delivered and refunds made in the range (`POST /self/{shopId}/invoices/{invoiceId}/refund`). ' +
        'Revenue figures stay gross: a refund does not take its amount out of the revenue of the day the order completed.',
    },
  ),
});

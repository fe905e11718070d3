import { type Static, Type } from '@sinclair/typebox';
import { CursorPageQuery, Id, Nullable, OptionalNullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { DateRangeQuery } from '../../schemas/dates.js';
import { Amount } from '../../schemas/money.js';

export const Customer = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  balance: Type.Number({ description: 'Shop balance, spendable with the balance gateway.' }),
  totalSpent: Type.Number(),
  currency: Type.String(),
  ordersCount: Type.Integer({ description: 'Completed orders.' }),
  referralCode: Type.String({ description: 'Sent as affiliateCode at checkout by the people this customer refers.' }),
  referralDisabled: Type.Boolean(),
  createdAt: Timestamp,
  lastOrderAt: Nullable(Timestamp),
});

export const CustomerParams = Type.Object({ shopId: Id, customerId: Id });

export const customerOrders = ['createdAt', '-createdAt', 'email', '-email', 'balance', '-balance'] as const;

export const CustomerListQuery = Type.Composite([
  CursorPageQuery,
  Type.Object({
    ...DateRangeQuery,
    orderBy: Type.Optional(
      StringEnum(customerOrders, {
        default: '-createdAt',
        description:
          '"-" sorts descending; email is the lower-cased address, balance the shop balance. Ties are broken by the customer id. ' +
          'A cursor is valid only in the order that returned it (400 otherwise).',
      }),
    ),
  }),
]);
export type CustomerListQuery = Static<typeof CustomerListQuery>;

export const StatsQuery = Type.Object(DateRangeQuery);

export const BalanceBody = Type.Object({
  amount: Amount,
  note: OptionalNullable(
    Type.String({ maxLength: 500, description: 'Kept with the ledger entry; null or omitted: none.' }),
  ),
});

export const BalanceResult = Type.Object({
  customerId: Type.Integer(),
  balance: Type.Number(),
  currency: Type.String(),
});

export const CustomerIp = Type.Object({
  ip: Type.String(),
  firstSeenAt: Timestamp,
  lastSeenAt: Timestamp,
  count: Type.Integer(),
});

export const CustomerStats = Type.Object({
  fromDate: Timestamp,
  toDate: Timestamp,
  currency: Type.String(),
  totalCustomers: Type.Integer(),
  newCustomers: Type.Integer({ description: 'Created in the range.' }),
  returningCustomers: Type.Integer({
    description: 'Completed an order in the range after an earlier completed order.',
  }),
  totalBalance: Type.Number({ description: 'Sum of all balances now.' }),
  topCustomers: Type.Array(
    Type.Object({
      customerId: Type.Integer(),
      email: Type.String(),
      totalSpent: Type.Number(),
      orders: Type.Integer(),
    }),
    {
      description: 'Up to 10, by amount spent in the range.',
    },
  ),
});

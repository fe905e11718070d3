import { Type } from '@sinclair/typebox';
import { OptionalNullable } from '../../schemas/common.js';
import { Amount } from '../../schemas/money.js';

export const RefundBody = Type.Object({
  amount: OptionalNullable({
    ...Amount,
    description: 'How much to refund, in the currency; omitted or null: everything not refunded yet. More is a 422.',
  }),
  reason: OptionalNullable(
    Type.String({ maxLength: 500, description: 'Kept with the refund and sent in `invoice.refunded`.' }),
  ),
});

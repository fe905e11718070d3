import { useMutation } from '@tanstack/react-query';
import { useParams } from 'wouter';
import type { BodyOf } from '../../../api/bodies';
import { ApiError, api, unwrap } from '../../../api/client';
import type { Invoice } from '../../../api/queries/invoices';
import { useBodyForm } from '../../../forms/body-form';
import { Field, FormProblems } from '../../../ui/Field';
import { money } from '../../../ui/format';
import { useToast } from '../../../ui/Toast';
import { currencyDigits, gatewayLabel, paymentKind, refundableAmount, useIdempotencyKey } from '../orders';
import { FormButtons } from './FormButtons';
import type { OrderChange } from './order-change';

/** What a refund of this order does with the money, as the API decides it (payments/refund.service.ts `refundMethod`). */
function refundEffect(order: Invoice): { text: string; submit: string } {
  const kind = paymentKind(order.gateway);
  if (kind === 'balance')
    return {
      text: `The amount is credited to ${order.customerEmail}'s balance in this shop at once.`,
      submit: 'Credit the balance',
    };
  if (kind === 'card' && order.payment.confirmedBy === 'provider' && order.payment.reference)
    return {
      text: "The amount goes back to the buyer's card through Stripe. If Stripe refuses, nothing is refunded and its answer is shown here.",
      submit: 'Refund through Stripe',
    };
  if (kind === 'card')
    return {
      text: 'This order was marked paid by hand, with no Stripe payment to refund: the refund is recorded here, and you send the money back to the buyer yourself.',
      submit: 'Record the refund',
    };
  if (kind === 'crypto')
    return {
      text: "The crypto provider cannot refund payments: the refund is recorded here, and you send the money back to the buyer yourself, from the provider's dashboard or your wallet.",
      submit: 'Record the refund',
    };
  return {
    text: `The refund is recorded here, and you send the money back to the buyer yourself, the way they paid (${gatewayLabel(order.gateway)}).`,
    submit: 'Record the refund',
  };
}

type RefundBody = BodyOf<'POST /self/{shopId}/invoices/{invoiceId}/refund'>;

/** Refund a completed order, in full or in part. */
export function RefundForm(props: OrderChange & { close: () => void }) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const idempotency = useIdempotencyKey();
  const c = order.currency;
  const left = refundableAmount(order);
  const effect = refundEffect(order);
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/invoices/{invoiceId}/refund',
    defaultValues: { amount: left.toFixed(currencyDigits(c)), reason: '' },
    toBody: (values) => ({ amount: Number(values.amount), reason: values.reason.trim() || null }),
    // An empty amount would mean "everything left" to the API: the owner says how much.
    check: (values) => ({ amount: values.amount.trim() === '' ? 'Enter the amount to refund.' : undefined }),
  });
  const refund = useMutation({
    mutationFn: (body: RefundBody) =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/refund', {
          params: { path: { shopId, invoiceId: order.id }, header: { 'idempotency-key': idempotency.keyFor(body) } },
          body,
        }),
      ),
    onSuccess: (next, body) => {
      notify(`Refunded ${money(body.amount ?? left, c)}`);
      props.onChange(next);
      props.close();
    },
    onError: (error) => {
      // The order moved on (another refund, a full refund meanwhile): shown on the order as it is now.
      if (error instanceof ApiError && error.status === 409) {
        props.onError(error);
        props.close();
      }
    },
    onMutate: () => props.onError(null),
    onSettled: (_data, error) => idempotency.settled(error),
  });
  return (
    <form className="stack orders-form" onSubmit={form.submit(refund.mutateAsync)} noValidate>
      <p>{effect.text}</p>
      <p className="muted small">
        The order stays completed and the buyer keeps the goods delivered; their total spend goes down by the amount.
        {order.refunded > 0 ? ` Refunded so far: ${money(order.refunded, c)} of ${money(order.total, c)}.` : ''}
      </p>
      <FormProblems form={form} error={refund.error} />
      <Field
        label={`Amount (${c})`}
        error={form.problem('amount')}
        hint={`Up to ${money(left, c)}, what is left to refund.`}
      >
        {(ids) => (
          <input
            {...ids}
            {...form.register('amount')}
            className="input"
            type="number"
            inputMode="decimal"
            min={0}
            max={left}
            step="any"
            required
          />
        )}
      </Field>
      <Field label="Reason" error={form.problem('reason')} hint="Kept with the refund (optional).">
        {(ids) => <textarea {...ids} {...form.register('reason')} className="input" rows={2} maxLength={500} />}
      </Field>
      <FormButtons
        label={effect.submit}
        pendingLabel="Refunding…"
        pending={refund.isPending}
        onClose={props.close}
        danger
      />
    </form>
  );
}

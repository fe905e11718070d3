import { useMutation } from '@tanstack/react-query';
import { useParams } from 'wouter';
import type { BodyOf } from '../../../api/bodies';
import { ApiError, api, unwrap } from '../../../api/client';
import type { Invoice } from '../../../api/queries/invoices';
import { useBodyForm } from '../../../forms/body-form';
import { strings } from '../../../strings';
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
      text: strings.order.theAmountIsCredited(order.customerEmail),
      submit: strings.order.creditTheBalance,
    };
  if (kind === 'card' && order.payment.confirmedBy === 'provider' && order.payment.reference)
    return {
      text: strings.order.theAmountGoesBack,
      submit: strings.order.refundThroughStripe,
    };
  if (kind === 'card')
    return {
      text: strings.order.thisOrderWasMarked,
      submit: strings.order.recordTheRefund,
    };
  if (kind === 'crypto')
    return {
      text: strings.order.theCryptoProviderCannot,
      submit: strings.order.recordTheRefund,
    };
  return {
    text: strings.order.theRefundIsRecorded(gatewayLabel(order.gateway)),
    submit: strings.order.recordTheRefund,
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
    check: (values) => ({ amount: values.amount.trim() === '' ? strings.order.enterTheAmountTo : undefined }),
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
      notify(strings.order.refundedAmount(money(body.amount ?? left, c)));
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
        {strings.order.theOrderStaysCompleted}
        {order.refunded > 0 ? strings.order.refundedSoFarOf(money(order.refunded, c), money(order.total, c)) : ''}
      </p>
      <FormProblems form={form} error={refund.error} />
      <Field
        label={strings.order.amount(c)}
        error={form.problem('amount')}
        hint={strings.order.upToWhatIs(money(left, c))}
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
      <Field label={strings.common.reason} error={form.problem('reason')} hint={strings.order.keptWithTheRefund}>
        {(ids) => <textarea {...ids} {...form.register('reason')} className="input" rows={2} maxLength={500} />}
      </Field>
      <FormButtons
        label={effect.submit}
        pendingLabel={strings.order.refunding}
        pending={refund.isPending}
        onClose={props.close}
        danger
      />
    </form>
  );
}

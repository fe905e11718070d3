import { useMutation } from '@tanstack/react-query';
import { useParams } from 'wouter';
import type { BodyOf } from '../../../api/bodies';
import { ApiError, api, unwrap } from '../../../api/client';
import { useBodyForm } from '../../../forms/body-form';
import { Field, FormProblems } from '../../../ui/Field';
import { money } from '../../../ui/format';
import { useToast } from '../../../ui/Toast';
import { type PaymentKind, paymentKind, useIdempotencyKey } from '../orders';
import { FormButtons } from './FormButtons';
import type { OrderChange } from './order-change';

/** What the reference asked for at Process is, by how the buyer paid. */
const referenceHints: Record<PaymentKind, string> = {
  manual: 'The reference the buyer quoted, or the transfer id of the money you received. Optional; kept on the order.',
  card: "The Stripe payment id you checked in Stripe's dashboard. Optional; kept on the order.",
  crypto: "The charge or transaction id you checked in the provider's dashboard. Optional; kept on the order.",
  balance: 'Optional; kept on the order.',
};

type ProcessBody = BodyOf<'POST /self/{shopId}/invoices/{invoiceId}/process'>;

/** Process: the owner confirms the money arrived (how, optionally), and the goods are delivered. */
export function ProcessForm(props: OrderChange & { close: () => void }) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const idempotency = useIdempotencyKey();
  const kind = paymentKind(order.gateway);
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/invoices/{invoiceId}/process',
    defaultValues: { paymentReference: '' },
    toBody: (values) => {
      const paymentReference = values.paymentReference.trim();
      return paymentReference ? { paymentReference } : {};
    },
  });
  const process = useMutation({
    mutationFn: (body: ProcessBody) =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/process', {
          params: { path: { shopId, invoiceId: order.id }, header: { 'idempotency-key': idempotency.keyFor(body) } },
          body,
        }),
      ),
    onSuccess: (next) => {
      notify('Order processed: the goods were delivered');
      props.onChange(next);
      props.close();
    },
    onError: (error) => {
      // The order moved on (409), or its dynamic delivery failed (422, recorded on the invoice):
      // both are shown on the order itself.
      if (error instanceof ApiError && (error.status === 409 || error.status === 422)) {
        if (error.status === 422) props.onChange(undefined);
        props.onError(error);
        props.close();
      }
    },
    onMutate: () => props.onError(null),
    onSettled: (_data, error) => idempotency.settled(error),
  });
  return (
    <form className="stack orders-form" onSubmit={form.submit(process.mutateAsync)} noValidate>
      <p>
        Mark order {order.id} as paid ({money(order.total, order.currency)}) and deliver its goods to{' '}
        {order.customerEmail}.
      </p>
      {kind === 'card' || kind === 'crypto' ? (
        <p className="muted small">
          {kind === 'card' ? 'Stripe' : 'The crypto provider'} completes this order by itself once the payment arrives.
          Process it by hand only after checking the payment in the provider's dashboard.
        </p>
      ) : null}
      {order.payment.note ? <p className="alert orders-warning small">{order.payment.note}</p> : null}
      <FormProblems form={form} error={process.error} />
      <Field label="Payment reference" error={form.problem('paymentReference')} hint={referenceHints[kind]}>
        {(ids) => (
          <input
            {...ids}
            {...form.register('paymentReference')}
            className="input"
            autoComplete="off"
            spellCheck={false}
            maxLength={200}
          />
        )}
      </Field>
      <FormButtons
        label="Mark paid and deliver"
        pendingLabel="Processing…"
        pending={process.isPending}
        onClose={props.close}
      />
    </form>
  );
}

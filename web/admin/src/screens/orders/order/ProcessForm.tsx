import { useMutation } from '@tanstack/react-query';
import { useParams } from 'wouter';
import type { BodyOf } from '../../../api/bodies';
import { ApiError, api, unwrap } from '../../../api/client';
import { useBodyForm } from '../../../forms/body-form';
import { strings } from '../../../strings';
import { Field, FormProblems } from '../../../ui/Field';
import { money } from '../../../ui/format';
import { useToast } from '../../../ui/Toast';
import { type PaymentKind, paymentKind, useIdempotencyKey } from '../orders';
import { FormButtons } from './FormButtons';
import type { OrderChange } from './order-change';

/** What the reference asked for at Process is, by how the buyer paid. */
const referenceHints: Record<PaymentKind, string> = strings.order.referenceHints;

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
      notify(strings.order.orderProcessedTheGoods);
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
      <p>{strings.order.markOrderAsPaid(order.id, money(order.total, order.currency), order.customerEmail)}</p>
      {kind === 'card' || kind === 'crypto' ? (
        <p className="muted small">
          {kind === 'card' ? strings.order.stripe : strings.order.theCryptoProvider}{' '}
          {strings.order.completesThisOrderBy}
        </p>
      ) : null}
      {order.payment.note ? <p className="alert orders-warning small">{order.payment.note}</p> : null}
      <FormProblems form={form} error={process.error} />
      <Field
        label={strings.order.paymentReference}
        error={form.problem('paymentReference')}
        hint={referenceHints[kind]}
      >
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
        label={strings.order.markPaidAndDeliver}
        pendingLabel={strings.order.processing}
        pending={process.isPending}
        onClose={props.close}
      />
    </form>
  );
}

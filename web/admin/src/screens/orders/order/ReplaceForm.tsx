import { useMutation } from '@tanstack/react-query';
import { useParams } from 'wouter';
import type { BodyOf } from '../../../api/bodies';
import { ApiError, api, unwrap } from '../../../api/client';
import type { Invoice } from '../../../api/queries/invoices';
import { useBodyForm } from '../../../forms/body-form';
import { strings } from '../../../strings';
import { Field, FormProblems } from '../../../ui/Field';
import { useToast } from '../../../ui/Toast';
import { useIdempotencyKey } from '../orders';
import { FormButtons } from './FormButtons';

type ReplaceBody = BodyOf<'POST /self/{shopId}/invoices/{invoiceId}/replacement'>;

/** Replace: fresh items of one part, delivered at no charge. */
export function ReplaceForm(props: { order: Invoice; onDone: (next: Invoice | undefined) => void; close: () => void }) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const idempotency = useIdempotencyKey();
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/invoices/{invoiceId}/replacement',
    defaultValues: { partInvoiceId: String(order.parts[0]?.id ?? ''), quantity: '1' },
    toBody: (values) => ({ partInvoiceId: Number(values.partInvoiceId), quantity: Number(values.quantity) }),
  });
  const partId = form.watch('partInvoiceId');
  const part = order.parts.find((p) => String(p.id) === partId);
  const replace = useMutation({
    mutationFn: (body: ReplaceBody) =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/replacement', {
          params: { path: { shopId, invoiceId: order.id }, header: { 'idempotency-key': idempotency.keyFor(body) } },
          body,
        }),
      ),
    onSuccess: (next) => {
      notify(strings.order.replacementDelivered);
      props.onDone(next);
      props.close();
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) props.onDone(undefined);
    },
    onSettled: (_data, error) => idempotency.settled(error),
  });
  return (
    <form className="stack" onSubmit={form.submit(replace.mutateAsync)} noValidate>
      <p className="muted small">{strings.order.freshItemsOfThe(order.customerEmail)}</p>
      <FormProblems form={form} error={replace.error} />
      <Field label={strings.order.part} error={form.problem('partInvoiceId')}>
        {(ids) => (
          <select {...ids} {...form.register('partInvoiceId')} className="input">
            {order.parts.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title} — {p.variantTitle} (×{p.quantity})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label={strings.order.quantity}
        error={form.problem('quantity')}
        hint={part ? strings.order.n1ToTheQuantity(part.quantity) : undefined}
      >
        {(ids) => (
          <input
            {...ids}
            {...form.register('quantity')}
            className="input"
            type="number"
            inputMode="numeric"
            min={1}
            max={part?.quantity}
            step={1}
            required
          />
        )}
      </Field>
      <FormButtons
        label={strings.order.deliverReplacement}
        pendingLabel={strings.order.delivering}
        pending={replace.isPending}
        onClose={props.close}
        disabled={!part}
      />
    </form>
  );
}

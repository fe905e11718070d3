import { useMutation } from '@tanstack/react-query';
import { useParams } from 'wouter';
import type { BodyOf } from '../../../api/bodies';
import { ApiError, api, unwrap } from '../../../api/client';
import type { Invoice } from '../../../api/queries/invoices';
import { useBodyForm } from '../../../forms/body-form';
import { strings } from '../../../strings';
import { Field, FormProblems } from '../../../ui/Field';
import { useToast } from '../../../ui/Toast';
import { FormButtons } from './FormButtons';

type ResendBody = BodyOf<'POST /self/{shopId}/invoices/{invoiceId}/resend'>;

/** Resend: the delivery e-mail again, to the order's address or another. */
export function ResendForm(props: { order: Invoice; onConflict: () => void; close: () => void }) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/invoices/{invoiceId}/resend',
    defaultValues: { email: '' },
    toBody: (values) => ({ email: values.email.trim() || null }),
  });
  const resend = useMutation({
    mutationFn: (body: ResendBody) =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/resend', {
          params: { path: { shopId, invoiceId: order.id } },
          body,
        }),
      ),
    onSuccess: (answer) => {
      notify(strings.order.deliveryEMailSent(answer.to));
      props.close();
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) props.onConflict();
    },
  });
  return (
    <form className="stack" noValidate onSubmit={form.submit(resend.mutateAsync)}>
      <FormProblems form={form} error={resend.error} />
      <Field
        label={strings.order.sendTo}
        error={form.problem('email')}
        hint={strings.order.leaveEmptyToSend(order.customerEmail)}
      >
        {(ids) => (
          <input
            {...ids}
            {...form.register('email')}
            className="input"
            type="email"
            autoComplete="off"
            placeholder={order.customerEmail}
          />
        )}
      </Field>
      <FormButtons
        label={strings.order.sendEMail}
        pendingLabel={strings.common.sending}
        pending={resend.isPending}
        onClose={props.close}
      />
    </form>
  );
}

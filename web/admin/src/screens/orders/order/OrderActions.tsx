import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'wouter';
import { ApiError, api, unwrap } from '../../../api/client';
import { strings } from '../../../strings';
import { ConfirmButton, Dialog } from '../../../ui/Dialog';
import { useToast } from '../../../ui/Toast';
import { invoiceActions, useIdempotencyKey } from '../orders';
import type { OrderChange } from './order-change';
import { ProcessForm } from './ProcessForm';
import { RefundForm } from './RefundForm';
import { ReplaceForm } from './ReplaceForm';
import { ResendForm } from './ResendForm';

/** Process, Cancel order, Refund, Replace and Resend, each only in the statuses the API allows it. */
export function OrderActions(props: OrderChange) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const invoiceId = order.id;
  const notify = useToast();
  const allowed = invoiceActions(order);
  const cancelKey = useIdempotencyKey();
  const [dialog, setDialog] = useState<'process' | 'refund' | 'replace' | 'resend' | null>(null);

  /** A 409 means the invoice moved on meanwhile (paid, expired, cancelled): show its state now. */
  const failed = (error: unknown) => {
    props.onError(error);
    if (error instanceof ApiError && error.status === 409) props.onChange(undefined);
  };
  const cancel = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/cancel', {
          params: { path: { shopId, invoiceId }, header: { 'idempotency-key': cancelKey.keyFor('cancel') } },
        }),
      ),
    onSuccess: (next) => {
      notify(strings.order.orderCancelled);
      props.onChange(next);
    },
    onError: failed,
    onMutate: () => props.onError(null),
    onSettled: (_data, error) => cancelKey.settled(error),
  });
  const close = () => setDialog(null);

  return (
    <div className="stack">
      <div className="orders-actions">
        {allowed.process ? (
          <button
            type="button"
            className="btn btn-primary"
            disabled={cancel.isPending}
            onClick={() => setDialog('process')}
          >
            {strings.order.process}
          </button>
        ) : null}
        {allowed.cancel ? (
          <ConfirmButton
            label={cancel.isPending ? strings.order.cancelling : strings.order.cancelOrder}
            danger
            question={strings.order.cancelOrderItsReserved(order.id)}
            disabled={cancel.isPending}
            onConfirm={() => cancel.mutate()}
          />
        ) : null}
        {allowed.refund ? (
          <button type="button" className="btn" onClick={() => setDialog('refund')}>
            {strings.order.refund}
          </button>
        ) : null}
        {allowed.replace ? (
          <button type="button" className="btn" onClick={() => setDialog('replace')}>
            {strings.order.replace}
          </button>
        ) : null}
        {allowed.resend ? (
          <button type="button" className="btn" onClick={() => setDialog('resend')}>
            {strings.common.resend}
          </button>
        ) : null}
      </div>
      <Dialog open={dialog === 'process'} onClose={close} title={strings.order.processTheOrder}>
        <ProcessForm order={order} onChange={props.onChange} onError={failed} close={close} />
      </Dialog>
      <Dialog open={dialog === 'refund'} onClose={close} title={strings.order.refundTheOrder}>
        <RefundForm order={order} onChange={props.onChange} onError={failed} close={close} />
      </Dialog>
      <Dialog open={dialog === 'replace'} onClose={close} title={strings.order.replaceItems}>
        <ReplaceForm order={order} onDone={props.onChange} close={close} />
      </Dialog>
      <Dialog open={dialog === 'resend'} onClose={close} title={strings.order.resendTheDeliveryE}>
        <ResendForm order={order} onConflict={() => props.onChange(undefined)} close={close} />
      </Dialog>
    </div>
  );
}

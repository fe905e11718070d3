import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError, api, unwrap } from '../../api/client';
import { useShopPath } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { dateTime, money } from '../../ui/format';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import {
  currencyDigits,
  gatewayLabel,
  type Invoice,
  invoiceActions,
  invoiceStatusLabels,
  invoiceStatusTones,
  type PaymentKind,
  paymentKind,
  refundableAmount,
  refundHow,
  useIdempotencyKey,
} from './orders';
import './orders.css';

export default function OrderScreen() {
  const params = useParams<{ shopId: string; invoiceId: string }>();
  const shopId = Number(params.shopId);
  const invoiceId = params.invoiceId;
  const shopPath = useShopPath();
  const queryClient = useQueryClient();
  const key = ['shop', shopId, 'invoices', 'detail', invoiceId];
  const [actionError, setActionError] = useState<unknown>(null);
  const invoice = useQuery({
    queryKey: key,
    queryFn: () => unwrap(api.GET('/self/{shopId}/invoices/{invoiceId}', { params: { path: { shopId, invoiceId } } })),
  });

  /** A changed invoice: show it, and refresh the lists and figures it counts in. */
  const changed = (next: Invoice | undefined) => {
    if (next) queryClient.setQueryData(key, next);
    else void queryClient.invalidateQueries({ queryKey: key });
    void queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'invoices', 'list'] });
    void queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'customers'] });
    void queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'dashboard'] });
  };

  const back = (
    <Link href={shopPath('/orders')} className="small">
      ← Orders
    </Link>
  );
  if (invoice.error)
    return (
      <Page title="Order" back={back}>
        <LoadError error={invoice.error} retry={() => invoice.refetch()} />
      </Page>
    );
  if (!invoice.data)
    return (
      <Page title="Order" back={back}>
        <Loading />
      </Page>
    );
  const order = invoice.data;

  return (
    <Page
      title={`Order ${order.id}`}
      back={back}
      actions={<OrderActions order={order} onChange={changed} onError={setActionError} />}
    >
      <div className="stack">
        <ActionError error={actionError} />
        {order.deliveryError ? (
          <div className="alert alert-error" role="alert">
            <p>The last delivery failed: {order.deliveryError} Processing the order again retries the delivery.</p>
          </div>
        ) : null}
        {order.payment.note ? (
          <div className="alert orders-warning" role="alert">
            <p>
              <strong>Payment needs your attention:</strong> {order.payment.note}
            </p>
          </div>
        ) : null}
        <div className="grid-2">
          <Summary order={order} />
          <Customer order={order} />
        </div>
        <Payment order={order} />
        <Parts order={order} />
        <div className="grid-2">
          <CustomFields order={order} />
          <Timeline order={order} />
        </div>
      </div>
    </Page>
  );
}

/** A failed Process or Cancel; a 409 means the order moved on, and the screen shows it as it is now. */
function ActionError(props: { error: unknown }) {
  if (!props.error) return null;
  if (props.error instanceof ApiError && props.error.status === 409)
    return (
      <div className="alert alert-error" role="alert">
        <p>{props.error.message} The order below is shown as it is now.</p>
      </div>
    );
  return <FormError error={props.error} />;
}

/** Process, Cancel order, Refund, Replace and Resend, each only in the statuses the API allows it. */
function OrderActions(props: {
  order: Invoice;
  onChange: (next: Invoice | undefined) => void;
  onError: (error: unknown) => void;
}) {
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
      notify('Order cancelled');
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
            Process
          </button>
        ) : null}
        {allowed.cancel ? (
          <ConfirmButton
            label={cancel.isPending ? 'Cancelling…' : 'Cancel order'}
            danger
            question={`Cancel order ${order.id}? Its reserved stock goes back on sale.`}
            disabled={cancel.isPending}
            onConfirm={() => cancel.mutate()}
          />
        ) : null}
        {allowed.refund ? (
          <button type="button" className="btn" onClick={() => setDialog('refund')}>
            Refund
          </button>
        ) : null}
        {allowed.replace ? (
          <button type="button" className="btn" onClick={() => setDialog('replace')}>
            Replace
          </button>
        ) : null}
        {allowed.resend ? (
          <button type="button" className="btn" onClick={() => setDialog('resend')}>
            Resend
          </button>
        ) : null}
      </div>
      <Dialog open={dialog === 'process'} onClose={close} title="Process the order">
        <ProcessForm order={order} onChange={props.onChange} onError={failed} close={close} />
      </Dialog>
      <Dialog open={dialog === 'refund'} onClose={close} title="Refund the order">
        <RefundForm order={order} onChange={props.onChange} onError={failed} close={close} />
      </Dialog>
      <Dialog open={dialog === 'replace'} onClose={() => setDialog(null)} title="Replace items">
        <ReplaceForm order={order} onDone={props.onChange} close={() => setDialog(null)} />
      </Dialog>
      <Dialog open={dialog === 'resend'} onClose={() => setDialog(null)} title="Resend the delivery e-mail">
        <ResendForm order={order} onConflict={() => props.onChange(undefined)} close={() => setDialog(null)} />
      </Dialog>
    </div>
  );
}

/** What the reference asked for at Process is, by how the buyer paid. */
const referenceHints: Record<PaymentKind, string> = {
  manual: 'The reference the buyer quoted, or the transfer id of the money you received. Optional; kept on the order.',
  card: "The Stripe payment id you checked in Stripe's dashboard. Optional; kept on the order.",
  crypto: "The charge or transaction id you checked in the provider's dashboard. Optional; kept on the order.",
  balance: 'Optional; kept on the order.',
};

/** Process: the owner confirms the money arrived (how, optionally), and the goods are delivered. */
function ProcessForm(props: {
  order: Invoice;
  onChange: (next: Invoice | undefined) => void;
  onError: (error: unknown) => void;
  close: () => void;
}) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const idempotency = useIdempotencyKey();
  const [reference, setReference] = useState('');
  const kind = paymentKind(order.gateway);
  const process = useMutation({
    mutationFn: (body: { paymentReference?: string }) =>
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
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const paymentReference = reference.trim();
    process.mutate(paymentReference ? { paymentReference } : {});
  };
  return (
    <form className="stack orders-form" onSubmit={submit} noValidate>
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
      <FormError error={process.error} fields={['paymentReference']} />
      <Field
        label="Payment reference"
        error={fieldError(process.error, 'paymentReference')}
        hint={referenceHints[kind]}
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            autoComplete="off"
            spellCheck={false}
            maxLength={200}
            value={reference}
            onChange={(e) => setReference(e.target.value)}
          />
        )}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={process.isPending}>
          {process.isPending ? 'Processing…' : 'Mark paid and deliver'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.close}>
          Close
        </button>
      </div>
    </form>
  );
}

/** What a refund of this order does with the money, as the API decides it (payment.service.ts `refundMethod`). */
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

/** Refund a completed order, in full or in part. */
function RefundForm(props: {
  order: Invoice;
  onChange: (next: Invoice | undefined) => void;
  onError: (error: unknown) => void;
  close: () => void;
}) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const idempotency = useIdempotencyKey();
  const c = order.currency;
  const left = refundableAmount(order);
  const [amount, setAmount] = useState(left.toFixed(currencyDigits(c)));
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const effect = refundEffect(order);
  const refund = useMutation({
    mutationFn: (body: { amount: number; reason: string | null }) =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/refund', {
          params: { path: { shopId, invoiceId: order.id }, header: { 'idempotency-key': idempotency.keyFor(body) } },
          body,
        }),
      ),
    onSuccess: (next, body) => {
      notify(`Refunded ${money(body.amount, c)}`);
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
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // An empty amount would mean "everything left" to the API: the owner says how much.
    const empty = amount.trim() === '';
    setMissing(empty);
    if (empty) return;
    refund.mutate({ amount: Number(amount), reason: reason.trim() || null });
  };
  return (
    <form className="stack orders-form" onSubmit={submit} noValidate>
      <p>{effect.text}</p>
      <p className="muted small">
        The order stays completed and the buyer keeps the goods delivered; their total spend goes down by the amount.
        {order.refunded > 0 ? ` Refunded so far: ${money(order.refunded, c)} of ${money(order.total, c)}.` : ''}
      </p>
      <FormError error={refund.error} fields={['amount', 'reason']} />
      <Field
        label={`Amount (${c})`}
        error={missing ? 'Enter the amount to refund.' : fieldError(refund.error, 'amount')}
        hint={`Up to ${money(left, c)}, what is left to refund.`}
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="number"
            inputMode="decimal"
            min={0}
            max={left}
            step="any"
            required
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
        )}
      </Field>
      <Field label="Reason" error={fieldError(refund.error, 'reason')} hint="Kept with the refund (optional).">
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            rows={2}
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        )}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-danger" disabled={refund.isPending}>
          {refund.isPending ? 'Refunding…' : effect.submit}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.close}>
          Close
        </button>
      </div>
    </form>
  );
}

function ReplaceForm(props: { order: Invoice; onDone: (next: Invoice | undefined) => void; close: () => void }) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const idempotency = useIdempotencyKey();
  const [partId, setPartId] = useState(String(order.parts[0]?.id ?? ''));
  const [quantity, setQuantity] = useState('1');
  const part = order.parts.find((p) => String(p.id) === partId);
  const replace = useMutation({
    mutationFn: (body: { partInvoiceId: number; quantity: number }) =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/replacement', {
          params: { path: { shopId, invoiceId: order.id }, header: { 'idempotency-key': idempotency.keyFor(body) } },
          body,
        }),
      ),
    onSuccess: (next) => {
      notify('Replacement delivered');
      props.onDone(next);
      props.close();
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) props.onDone(undefined);
    },
    onSettled: (_data, error) => idempotency.settled(error),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    replace.mutate({ partInvoiceId: Number(partId), quantity: Number(quantity) });
  };
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <p className="muted small">
        Fresh items of the part's variant are delivered at no charge and mailed to {order.customerEmail}.
      </p>
      <FormError error={replace.error} fields={['partInvoiceId', 'quantity']} />
      <Field label="Part" error={fieldError(replace.error, 'partInvoiceId')}>
        {(ids) => (
          <select {...ids} className="input" value={partId} onChange={(e) => setPartId(e.target.value)}>
            {order.parts.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title} — {p.variantTitle} (×{p.quantity})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label="Quantity"
        error={fieldError(replace.error, 'quantity')}
        hint={part ? `1 to ${part.quantity}, the quantity of that part.` : undefined}
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="number"
            inputMode="numeric"
            min={1}
            max={part?.quantity}
            step={1}
            required
            value={quantity}
            onChange={(e) => setQuantity(e.target.value)}
          />
        )}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={replace.isPending || !part}>
          {replace.isPending ? 'Delivering…' : 'Deliver replacement'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.close}>
          Close
        </button>
      </div>
    </form>
  );
}

function ResendForm(props: { order: Invoice; onConflict: () => void; close: () => void }) {
  const { order } = props;
  const shopId = Number(useParams<{ shopId: string }>().shopId);
  const notify = useToast();
  const [email, setEmail] = useState('');
  const resend = useMutation({
    mutationFn: (to: string) =>
      unwrap(
        api.POST('/self/{shopId}/invoices/{invoiceId}/resend', {
          params: { path: { shopId, invoiceId: order.id } },
          body: { email: to || null },
        }),
      ),
    onSuccess: (answer) => {
      notify(`Delivery e-mail sent to ${answer.to}`);
      props.close();
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) props.onConflict();
    },
  });
  return (
    <form
      className="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        resend.mutate(email.trim());
      }}
    >
      <FormError error={resend.error} fields={['email']} />
      <Field
        label="Send to"
        error={fieldError(resend.error, 'email')}
        hint={`Leave empty to send it to the order's address, ${order.customerEmail}.`}
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="email"
            autoComplete="off"
            placeholder={order.customerEmail}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        )}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={resend.isPending}>
          {resend.isPending ? 'Sending…' : 'Send e-mail'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.close}>
          Close
        </button>
      </div>
    </form>
  );
}

function Summary(props: { order: Invoice }) {
  const { order } = props;
  const c = order.currency;
  return (
    <Card title="Summary">
      <dl className="orders-facts">
        <dt>Status</dt>
        <dd>
          <Badge tone={invoiceStatusTones[order.status]}>{invoiceStatusLabels[order.status]}</Badge>
          {order.refunded > 0 ? (
            <>
              {' '}
              <Badge tone="warn">{order.refunded >= order.total ? 'Refunded' : 'Partly refunded'}</Badge>
            </>
          ) : null}
        </dd>
        <dt>Gateway</dt>
        <dd>{gatewayLabel(order.gateway)}</dd>
        <dt>Subtotal</dt>
        <dd>{money(order.subtotal, c)}</dd>
        {order.coupon || order.discount > 0 ? (
          <>
            <dt>Discount</dt>
            <dd>
              −{money(order.discount, c)}
              {order.coupon ? (
                <>
                  {' '}
                  (coupon <code>{order.coupon}</code>)
                </>
              ) : null}
            </dd>
          </>
        ) : null}
        <dt>Total</dt>
        <dd>
          <strong>{money(order.total, c)}</strong>
        </dd>
        {order.refunded > 0 ? (
          <>
            <dt>Refunded</dt>
            <dd>
              {money(order.refunded, c)} of {money(order.total, c)}
            </dd>
          </>
        ) : null}
        {order.affiliateCode ? (
          <>
            <dt>Affiliate</dt>
            <dd>
              <code>{order.affiliateCode}</code> · commission {money(order.commission, c)}
            </dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>{dateTime(order.createdAt)}</dd>
        {order.completedAt ? (
          <>
            <dt>Completed</dt>
            <dd>{dateTime(order.completedAt)}</dd>
          </>
        ) : null}
        {order.status === 'pending' ? (
          <>
            <dt>Expires</dt>
            <dd>{dateTime(order.expiresAt)}</dd>
          </>
        ) : null}
        <dt>Buyer's page</dt>
        <dd>
          <a href={order.url} target="_blank" rel="noreferrer">
            Open the invoice page
          </a>
        </dd>
      </dl>
    </Card>
  );
}

const paidHow: Record<PaymentKind, string> = {
  card: "By card on Stripe's payment page; Stripe tells shopd when the money arrives.",
  crypto: "In cryptocurrency on the provider's payment page; the provider tells shopd when it is confirmed.",
  balance: "From the buyer's balance in this shop, at checkout.",
  manual: 'Outside shopd: you confirm the money arrived by processing the order.',
};

/** How the order is paid: the gateway, the provider's payment, the reference, a note, the refunds. */
function Payment(props: { order: Invoice }) {
  const { order } = props;
  const { payment } = order;
  const c = order.currency;
  const kind = paymentKind(order.gateway);
  return (
    <Card title="Payment">
      <dl className="orders-facts">
        <dt>Gateway</dt>
        <dd>
          {gatewayLabel(order.gateway)}
          <span className="muted small orders-fact-hint">{paidHow[kind]}</span>
        </dd>
        {payment.url || payment.providerId ? (
          <>
            <dt>Provider's payment</dt>
            <dd>
              {payment.url ? (
                <a href={payment.url} target="_blank" rel="noreferrer">
                  Open the payment page
                </a>
              ) : null}
              {payment.url && payment.providerId ? ' · ' : null}
              {payment.providerId ? <code>{payment.providerId}</code> : null}
            </dd>
          </>
        ) : null}
        <dt>Payment reference</dt>
        <dd>
          {payment.reference ? (
            <code>{payment.reference}</code>
          ) : (
            <span className="muted">
              {order.status !== 'pending'
                ? '—'
                : kind === 'manual'
                  ? 'None yet: give it when you process the order.'
                  : kind === 'balance'
                    ? '—'
                    : 'None yet: the provider sends it when the payment arrives.'}
            </span>
          )}
        </dd>
        {payment.note ? (
          <>
            <dt>Note</dt>
            <dd className="orders-note">{payment.note}</dd>
          </>
        ) : null}
      </dl>
      {order.refunds.length > 0 ? (
        <>
          <h3>Refunds</h3>
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">Refunds of the order</caption>
              <thead>
                <tr>
                  <th>Date</th>
                  <th className="num">Amount</th>
                  <th>How</th>
                  <th>Reason</th>
                </tr>
              </thead>
              <tbody>
                {order.refunds.map((r) => (
                  <tr key={r.id}>
                    <td data-label="Date">
                      <time dateTime={r.createdAt}>{dateTime(r.createdAt)}</time>
                    </td>
                    <td data-label="Amount" className="num">
                      {money(r.amount, c)}
                    </td>
                    <td data-label="How">
                      {refundHow(r, order.gateway)}
                      {r.providerRefundId ? (
                        <>
                          {' '}
                          <code className="small">{r.providerRefundId}</code>
                        </>
                      ) : null}
                      {r.status === 'pending' ? (
                        <>
                          {' '}
                          <Badge tone="warn">Pending</Badge>
                        </>
                      ) : null}
                    </td>
                    <td data-label="Reason">{r.reason ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </Card>
  );
}

function Customer(props: { order: Invoice }) {
  const { order } = props;
  const shopPath = useShopPath();
  return (
    <Card title="Customer">
      <dl className="orders-facts">
        <dt>E-mail</dt>
        <dd>
          <Link href={shopPath(`/customers/${order.customerId}`)}>{order.customerEmail}</Link>
        </dd>
        <dt>IP address</dt>
        <dd>{order.ip ?? '—'}</dd>
        <dt>Country</dt>
        <dd>{order.country ?? '—'}</dd>
        <dt>Browser</dt>
        <dd className="small">{order.userAgent ?? '—'}</dd>
        {order.chatUserId ? (
          <>
            <dt>Chat user id</dt>
            <dd>
              <code>{order.chatUserId}</code>
            </dd>
          </>
        ) : null}
      </dl>
      <p>
        <Link href={shopPath(`/orders?customerId=${order.customerId}`)} className="small">
          All orders of this customer
        </Link>
      </p>
    </Card>
  );
}

/** Goods are secrets the buyer paid for: masked until the owner asks to see them. */
function Goods(props: { items: string[]; shown: boolean; label: string }) {
  if (props.items.length === 0) return <p className="muted small">Nothing delivered.</p>;
  return (
    <ol className="orders-goods" aria-label={props.label}>
      {props.items.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the same serial text may repeat; the order is fixed
        <li key={i}>{props.shown ? item : <span className="orders-masked">••••••••••••</span>}</li>
      ))}
    </ol>
  );
}

function Parts(props: { order: Invoice }) {
  const { order } = props;
  const [shown, setShown] = useState(false);
  const delivered =
    order.parts.some((p) => p.deliverables.length > 0) || order.replacements.some((r) => r.deliverables.length > 0);
  const partTitle = (partId: number) => {
    const part = order.parts.find((p) => p.id === partId);
    return part ? `${part.title} — ${part.variantTitle}` : `Part ${partId}`;
  };
  return (
    <Card
      title="Items"
      actions={
        delivered ? (
          <button type="button" className="btn" aria-pressed={shown} onClick={() => setShown(!shown)}>
            {shown ? 'Hide goods' : 'Show goods'}
          </button>
        ) : null
      }
    >
      <div className="table-wrap">
        <table className="table">
          <caption className="sr-only">Items of the order</caption>
          <thead>
            <tr>
              <th>Product</th>
              <th>Variant</th>
              <th className="num">Quantity</th>
              <th className="num">Unit price</th>
              <th className="num">Total</th>
              <th>Goods delivered</th>
            </tr>
          </thead>
          <tbody>
            {order.parts.map((p) => (
              <tr key={p.id}>
                <td data-label="Product">{p.title}</td>
                <td data-label="Variant">{p.variantTitle}</td>
                <td data-label="Quantity" className="num">
                  {p.quantity}
                </td>
                <td data-label="Unit price" className="num">
                  {money(p.unitPrice, order.currency)}
                </td>
                <td data-label="Total" className="num">
                  {money(p.total, order.currency)}
                </td>
                <td data-label="Goods delivered">
                  <Goods items={p.deliverables} shown={shown} label={`Goods of ${p.title} — ${p.variantTitle}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {order.replacements.length > 0 ? (
        <>
          <h3>Replacements</h3>
          <ul className="orders-replacements">
            {order.replacements.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: replacements have no id and never reorder
              <li key={i}>
                <time dateTime={r.createdAt}>{dateTime(r.createdAt)}</time>
                {r.quantity} × {partTitle(r.partInvoiceId)}
                <Goods items={r.deliverables} shown={shown} label={`Replacement goods of ${dateTime(r.createdAt)}`} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Card>
  );
}

function CustomFields(props: { order: Invoice }) {
  const answers = Object.entries(props.order.customFields);
  return (
    <Card title="Custom fields">
      {answers.length === 0 ? (
        <p className="muted">The buyer answered no custom fields.</p>
      ) : (
        <dl className="orders-facts">
          {answers.map(([name, value]) => (
            <div key={name} style={{ display: 'contents' }}>
              <dt>{name}</dt>
              <dd>{typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </Card>
  );
}

/** What happened to the order, from the dates the API gives. */
function Timeline(props: { order: Invoice }) {
  const { order } = props;
  const events: { at: string | null; text: string }[] = [
    {
      at: order.createdAt,
      text: `Order placed with ${gatewayLabel(order.gateway)} for ${money(order.total, order.currency)}`,
    },
  ];
  if (order.completedAt) events.push({ at: order.completedAt, text: 'Completed: goods delivered and mailed' });
  for (const r of order.refunds)
    events.push({
      at: r.createdAt,
      text: `Refunded ${money(r.amount, order.currency)}${r.reason ? ` — “${r.reason}”` : ''}`,
    });
  for (const r of order.replacements) {
    const part = order.parts.find((p) => p.id === r.partInvoiceId);
    events.push({ at: r.createdAt, text: `Replacement of ${r.quantity} × ${part?.title ?? 'an item'}` });
  }
  if (order.feedback)
    events.push({
      at: order.feedback.createdAt,
      text: `Feedback: ${order.feedback.rating} of 5${order.feedback.comment ? ` — “${order.feedback.comment}”` : ''}`,
    });
  events.sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
  if (order.status === 'expired') events.push({ at: order.expiresAt, text: 'Expired unpaid' });
  if (order.status === 'cancelled') events.push({ at: null, text: 'Cancelled' });
  if (order.status === 'pending') events.push({ at: order.expiresAt, text: 'Expires unless paid by then' });
  return (
    <Card title="Timeline">
      <ol className="orders-timeline">
        {events.map((event) => (
          <li key={`${event.at}-${event.text}`}>
            {event.at ? <time dateTime={event.at}>{dateTime(event.at)}</time> : null}
            {event.text}
          </li>
        ))}
      </ol>
    </Card>
  );
}

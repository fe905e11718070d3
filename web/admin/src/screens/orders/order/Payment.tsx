import type { Invoice } from '../../../api/queries/invoices';
import { dateTime, money } from '../../../ui/format';
import { Badge, Card } from '../../../ui/Page';
import { gatewayLabel, type PaymentKind, paymentKind, refundHow } from '../orders';

const paidHow: Record<PaymentKind, string> = {
  card: "By card on Stripe's payment page; Stripe tells shopd when the money arrives.",
  crypto: "In cryptocurrency on the provider's payment page; the provider tells shopd when it is confirmed.",
  balance: "From the buyer's balance in this shop, at checkout.",
  manual: 'Outside shopd: you confirm the money arrived by processing the order.',
};

/** How the order is paid: the gateway, the provider's payment, the reference, a note, the refunds. */
export function Payment(props: { order: Invoice }) {
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
        {order.paymentCode ? (
          <>
            <dt>Buyer's reference</dt>
            <dd>
              <code>{order.paymentCode}</code>
              <span className="muted small orders-fact-hint">
                What the buyer quotes with the payment, instead of the order id; search the orders by it.
              </span>
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

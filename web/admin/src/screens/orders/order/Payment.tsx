import type { Invoice } from '../../../api/queries/invoices';
import { ShopTime } from '../../../app/shop-dates';
import { strings } from '../../../strings';
import { money } from '../../../ui/format';
import { Badge, Card } from '../../../ui/Page';
import { gatewayLabel, type PaymentKind, paymentKind, refundHow } from '../orders';

const paidHow: Record<PaymentKind, string> = strings.order.paidHow;

/** How the order is paid: the gateway, the provider's payment, the reference, a note, the refunds. */
export function Payment(props: { order: Invoice }) {
  const { order } = props;
  const { payment } = order;
  const c = order.currency;
  const kind = paymentKind(order.gateway);
  return (
    <Card title={strings.order.payment}>
      <dl className="orders-facts">
        <dt>{strings.common.gateway}</dt>
        <dd>
          {gatewayLabel(order.gateway)}
          <span className="muted small orders-fact-hint">{paidHow[kind]}</span>
        </dd>
        {payment.url || payment.providerId ? (
          <>
            <dt>{strings.order.providersPayment}</dt>
            <dd>
              {payment.url ? (
                <a href={payment.url} target="_blank" rel="noreferrer">
                  {strings.order.openThePaymentPage}
                </a>
              ) : null}
              {payment.url && payment.providerId ? ' · ' : null}
              {payment.providerId ? <code>{payment.providerId}</code> : null}
            </dd>
          </>
        ) : null}
        {order.paymentCode ? (
          <>
            <dt>{strings.order.buyersReference}</dt>
            <dd>
              <code>{order.paymentCode}</code>
              <span className="muted small orders-fact-hint">{strings.order.whatTheBuyerQuotes}</span>
            </dd>
          </>
        ) : null}
        <dt>{strings.order.paymentReference}</dt>
        <dd>
          {payment.reference ? (
            <code>{payment.reference}</code>
          ) : (
            <span className="muted">
              {order.status !== 'pending'
                ? '—'
                : kind === 'manual'
                  ? strings.order.noneYetGiveIt
                  : kind === 'balance'
                    ? '—'
                    : strings.order.noneYetTheProvider}
            </span>
          )}
        </dd>
        {payment.note ? (
          <>
            <dt>{strings.common.note}</dt>
            <dd className="orders-note">{payment.note}</dd>
          </>
        ) : null}
      </dl>
      {order.refunds.length > 0 ? (
        <>
          <h3>{strings.common.refunds}</h3>
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">{strings.order.refundsOfTheOrder}</caption>
              <thead>
                <tr>
                  <th>{strings.common.date}</th>
                  <th className="num">{strings.common.amount}</th>
                  <th>{strings.order.how}</th>
                  <th>{strings.common.reason}</th>
                </tr>
              </thead>
              <tbody>
                {order.refunds.map((r) => (
                  <tr key={r.id}>
                    <td data-label={strings.common.date}>
                      <ShopTime iso={r.createdAt} />
                    </td>
                    <td data-label={strings.common.amount} className="num">
                      {money(r.amount, c)}
                    </td>
                    <td data-label={strings.order.how}>
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
                          <Badge tone="warn">{strings.order.pending}</Badge>
                        </>
                      ) : null}
                    </td>
                    <td data-label={strings.common.reason}>{r.reason ?? <span className="muted">—</span>}</td>
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

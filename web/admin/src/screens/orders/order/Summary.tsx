import type { Invoice } from '../../../api/queries/invoices';
import { dateTime, money } from '../../../ui/format';
import { Badge, Card } from '../../../ui/Page';
import { gatewayLabel, invoiceStatusLabels, invoiceStatusTones } from '../orders';

export function Summary(props: { order: Invoice }) {
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

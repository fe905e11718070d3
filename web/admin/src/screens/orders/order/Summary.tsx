import type { Invoice } from '../../../api/queries/invoices';
import { ShopTime } from '../../../app/shop-dates';
import { strings } from '../../../strings';
import { money } from '../../../ui/format';
import { Badge, Card } from '../../../ui/Page';
import { gatewayLabel, invoiceStatusLabels, invoiceStatusTones } from '../orders';

export function Summary(props: { order: Invoice }) {
  const { order } = props;
  const c = order.currency;
  return (
    <Card title={strings.order.summary}>
      <dl className="orders-facts">
        <dt>{strings.common.status}</dt>
        <dd>
          <Badge tone={invoiceStatusTones[order.status]}>{invoiceStatusLabels[order.status]}</Badge>
          {order.refunded > 0 ? (
            <>
              {' '}
              <Badge tone="warn">
                {order.refunded >= order.total ? strings.order.refunded : strings.order.partlyRefunded}
              </Badge>
            </>
          ) : null}
        </dd>
        <dt>{strings.common.gateway}</dt>
        <dd>{gatewayLabel(order.gateway)}</dd>
        <dt>{strings.order.subtotal}</dt>
        <dd>{money(order.subtotal, c)}</dd>
        {order.coupon || order.discount > 0 ? (
          <>
            <dt>{strings.common.discount}</dt>
            <dd>
              −{money(order.discount, c)}
              {order.coupon ? (
                <>
                  {' '}
                  {strings.order.coupon} <code>{order.coupon}</code>)
                </>
              ) : null}
            </dd>
          </>
        ) : null}
        <dt>{strings.common.total}</dt>
        <dd>
          <strong>{money(order.total, c)}</strong>
        </dd>
        {order.refunded > 0 ? (
          <>
            <dt>{strings.order.refunded}</dt>
            <dd>{strings.order.of(money(order.refunded, c), money(order.total, c))}</dd>
          </>
        ) : null}
        {order.affiliateCode ? (
          <>
            <dt>{strings.order.affiliate}</dt>
            <dd>
              <code>{order.affiliateCode}</code> {strings.order.commission(money(order.commission, c))}
            </dd>
          </>
        ) : null}
        <dt>{strings.common.created}</dt>
        <dd>
          <ShopTime iso={order.createdAt} />
        </dd>
        {order.completedAt ? (
          <>
            <dt>{strings.order.completed}</dt>
            <dd>
              <ShopTime iso={order.completedAt} />
            </dd>
          </>
        ) : null}
        {order.status === 'pending' ? (
          <>
            <dt>{strings.common.expires}</dt>
            <dd>
              <ShopTime iso={order.expiresAt} />
            </dd>
          </>
        ) : null}
        <dt>{strings.order.buyersPage}</dt>
        <dd>
          <a href={order.url} target="_blank" rel="noreferrer">
            {strings.order.openTheInvoicePage}
          </a>
        </dd>
      </dl>
    </Card>
  );
}

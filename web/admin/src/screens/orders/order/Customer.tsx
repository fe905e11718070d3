import { Link } from 'wouter';
import type { Invoice } from '../../../api/queries/invoices';
import { useShopPath } from '../../../app/shop';
import { strings } from '../../../strings';
import { Card } from '../../../ui/Page';

export function Customer(props: { order: Invoice }) {
  const { order } = props;
  const shopPath = useShopPath();
  return (
    <Card title={strings.common.customer}>
      <dl className="orders-facts">
        <dt>{strings.common.eMail}</dt>
        <dd>
          <Link href={shopPath(`/customers/${order.customerId}`)}>{order.customerEmail}</Link>
        </dd>
        <dt>{strings.common.ipAddress}</dt>
        <dd>{order.ip ?? '—'}</dd>
        <dt>{strings.order.country}</dt>
        <dd>{order.country ?? '—'}</dd>
        <dt>{strings.common.browser}</dt>
        <dd className="small">{order.userAgent ?? '—'}</dd>
        {order.chatUserId ? (
          <>
            <dt>{strings.order.chatUserId}</dt>
            <dd>
              <code>{order.chatUserId}</code>
            </dd>
          </>
        ) : null}
      </dl>
      <p>
        <Link href={shopPath(`/orders?customerId=${order.customerId}`)} className="small">
          {strings.order.allOrdersOfThis}
        </Link>
      </p>
    </Card>
  );
}
